{{/*
The connection key: the key file that encrypts connections' secret values in
the database, from connectionKey.existingSecret or the Secret the chart makes
(connection-key-secret.yaml). Both binaries read it through
QUARTERDECK_CONNECTION_KEY_FILE; the whole Secret is mounted (no subPath), so
a rotated key reaches running pods, which re-read the file when they meet a
value under a key they do not have.
*/}}
{{- define "quarterdeck.connectionKey.secretName" -}}
{{- .Values.connectionKey.existingSecret.name | default (printf "%s-connection-key" (include "quarterdeck.fullname" .)) }}
{{- end }}

{{- define "quarterdeck.connectionKey.env" -}}
- name: QUARTERDECK_CONNECTION_KEY_FILE
  value: /etc/quarterdeck/connection-key/connection-key
{{- end }}

{{- define "quarterdeck.connectionKey.volumeMount" -}}
- name: connection-key
  mountPath: /etc/quarterdeck/connection-key
  readOnly: true
{{- end }}

{{- define "quarterdeck.connectionKey.volume" -}}
# 288 is 0440: readable by the pod's fsGroup (the binaries), not by others such
# as the operator's script user (octal literals read differently in YAML 1.1 and 1.2).
- name: connection-key
  secret:
    secretName: {{ include "quarterdeck.connectionKey.secretName" . | quote }}
    defaultMode: 288
    items:
      - key: {{ .Values.connectionKey.existingSecret.key | quote }}
        path: connection-key
{{- end }}

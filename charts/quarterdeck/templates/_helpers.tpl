{{/* Names, labels and shared snippets of the quarterdeck chart. */}}

{{- define "quarterdeck.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name prefix of every resource: the release name, plus the chart name when
the release name does not already contain it. Trimmed to leave room for the
longest suffix ("-postgresql").
*/}}
{{- define "quarterdeck.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "quarterdeck.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "quarterdeck.labels" -}}
helm.sh/chart: {{ include "quarterdeck.chart" . | quote }}
app.kubernetes.io/name: {{ include "quarterdeck.name" . | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
app.kubernetes.io/part-of: quarterdeck
{{- end }}

{{/* Selector labels of one component: include with (dict "ctx" $ "component" "api"). */}}
{{- define "quarterdeck.selectorLabels" -}}
app.kubernetes.io/name: {{ include "quarterdeck.name" .ctx | quote }}
app.kubernetes.io/instance: {{ .ctx.Release.Name | quote }}
app.kubernetes.io/component: {{ .component | quote }}
{{- end }}

{{/* Labels of one component's resources. */}}
{{- define "quarterdeck.componentLabels" -}}
{{ include "quarterdeck.labels" .ctx }}
app.kubernetes.io/component: {{ .component | quote }}
{{- end }}

{{- define "quarterdeck.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag | toString) }}
{{- end }}

{{- define "quarterdeck.postgresql.image" -}}
{{- printf "%s:%s" .Values.postgresql.image.repository (.Values.postgresql.image.tag | toString) }}
{{- end }}

{{- define "quarterdeck.api.serviceAccountName" -}}
{{- if .Values.api.serviceAccount.create }}
{{- default (printf "%s-api" (include "quarterdeck.fullname" .)) .Values.api.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.api.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "quarterdeck.operator.serviceAccountName" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (printf "%s-operator" (include "quarterdeck.fullname" .)) .Values.operator.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "quarterdeck.leaseName" -}}
{{- printf "%s-operator" (include "quarterdeck.fullname" .) }}
{{- end }}

{{- define "quarterdeck.postgresql.fullname" -}}
{{- printf "%s-postgresql" (include "quarterdeck.fullname" .) }}
{{- end }}

{{/* The secret and key holding DATABASE_URL. */}}
{{- define "quarterdeck.database.secretName" -}}
{{- if .Values.postgresql.enabled }}
{{- include "quarterdeck.postgresql.fullname" . }}
{{- else }}
{{- required "database.existingSecret.name is required when postgresql.enabled is false" .Values.database.existingSecret.name }}
{{- end }}
{{- end }}

{{- define "quarterdeck.database.secretKey" -}}
{{- if .Values.postgresql.enabled }}DATABASE_URL{{ else }}{{ .Values.database.existingSecret.key }}{{ end }}
{{- end }}

{{/* QUARTERDECK_PUBLIC_URL: the value, else the ingress host, else the port-forward address. */}}
{{- define "quarterdeck.publicUrl" -}}
{{- if .Values.publicUrl }}
{{- .Values.publicUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.host }}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host }}
{{- else }}
{{- "http://127.0.0.1:8080" }}
{{- end }}
{{- end }}

{{/* QUARTERDECK_WEBAUTHN_ORIGIN: the value, else localhost for the port-forward address, else none (the public URL). */}}
{{- define "quarterdeck.webauthnOrigin" -}}
{{- if .Values.webauthnOrigin }}
{{- .Values.webauthnOrigin }}
{{- else if eq (include "quarterdeck.publicUrl" .) "http://127.0.0.1:8080" }}
{{- "http://localhost:8080" }}
{{- end }}
{{- end }}

{{/* Environment shared by both binaries. */}}
{{- define "quarterdeck.commonEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "quarterdeck.database.secretName" . | quote }}
      key: {{ include "quarterdeck.database.secretKey" . | quote }}
- name: QUARTERDECK_DB_STATEMENT_TIMEOUT
  value: {{ .Values.database.statementTimeout | quote }}
- name: RUST_LOG
  value: {{ .Values.log.filter | quote }}
- name: QUARTERDECK_LOG_FORMAT
  value: {{ .Values.log.format | quote }}
{{- end }}

{{/*
Waits for the bundled PostgreSQL before the binary starts, which would
otherwise exit and restart until the database answers.
*/}}
{{- define "quarterdeck.waitForDatabase" -}}
{{- if .Values.postgresql.enabled }}
- name: wait-for-database
  image: {{ include "quarterdeck.postgresql.image" . | quote }}
  imagePullPolicy: {{ .Values.postgresql.image.pullPolicy | quote }}
  command:
    - sh
    - -c
    - until pg_isready -q -h "$PGHOST" -p "$PGPORT"; do echo "waiting for $PGHOST:$PGPORT"; sleep 2; done
  env:
    - name: PGHOST
      value: {{ include "quarterdeck.postgresql.fullname" . | quote }}
    - name: PGPORT
      value: {{ .Values.postgresql.service.port | quote }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  resources:
    requests:
      cpu: 10m
      memory: 16Mi
    limits:
      memory: 64Mi
{{- end }}
{{- end }}

{{/* The quarterdeck.dev resources, for RBAC rules. */}}
{{- define "quarterdeck.crdResources" -}}
{{ include "quarterdeck.crdContentResources" . }}
{{ include "quarterdeck.crdAccessControlResources" . }}
{{- end }}

{{/* The kinds namespace editors write: what the console shows and runs. */}}
{{- define "quarterdeck.crdContentResources" -}}
- canaries
- topologies
- scrapeconfigs
- playbooks
{{- end }}

{{/*
Permission and AccessScope: namespaced objects whose rules apply to the whole
console, so only cluster-admins write them (docs/decisions.md).
*/}}
{{- define "quarterdeck.crdAccessControlResources" -}}
- permissions
- accessscopes
{{- end }}

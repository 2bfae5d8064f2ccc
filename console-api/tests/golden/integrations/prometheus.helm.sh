helm repo add quarterdeck https://charts.quarterdeck.dev
helm repo update
helm install quarterdeck-prometheus quarterdeck/quarterdeck-prometheus \
  --namespace quarterdeck \
  --create-namespace \
  --set 'alerts.ignore[0]=Watchdog' \
  --set 'alerts.ignore[1]=InfoInhibitor' \
  --set 'alerts.severities[0]=critical' \
  --set auth.password.valueFrom.secretKeyRef.key=password \
  --set auth.password.valueFrom.secretKeyRef.name=prometheus-basic-auth \
  --set auth.username.value=quarterdeck \
  --set 'canary.schedule=*/5 * * * *' \
  --set url=https://prometheus.monitoring.svc:9090/

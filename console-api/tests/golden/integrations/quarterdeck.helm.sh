helm repo add quarterdeck https://charts.quarterdeck.dev
helm repo update
helm install quarterdeck-watchtower quarterdeck/quarterdeck-watchtower \
  --namespace quarterdeck \
  --create-namespace \
  --set 'checks.schedule=@every 30s' \
  --set prometheus.url=http://prometheus-operated.monitoring:9090 \
  --set quarterdeckNamespace=quarterdeck

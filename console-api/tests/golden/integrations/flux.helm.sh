helm repo add quarterdeck https://charts.quarterdeck.dev
helm repo update
helm install quarterdeck-flux quarterdeck/quarterdeck-flux \
  --namespace quarterdeck \
  --create-namespace \
  --set clusterName=edge-01 \
  --set labels.environment=staging \
  --set-json 'namespaceSelector.exclude=[]' \
  --set 'namespaceSelector.include[0]=flux-system' \
  --set 'namespaceSelector.include[1]=apps-*' \
  --set playbooks.enabled=false \
  --set 'topology.schedule=@every 10m'

helm repo add quarterdeck https://charts.quarterdeck.dev
helm repo update
helm install quarterdeck-azure quarterdeck/quarterdeck-azure \
  --namespace quarterdeck \
  --create-namespace \
  --set clientID.value=5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b \
  --set clientSecret.valueFrom.secretKeyRef.key=client-secret \
  --set clientSecret.valueFrom.secretKeyRef.name=azure-sp \
  --set scraper.costs.enabled=true \
  --set 'scraper.include[0]=Microsoft.Compute/virtualMachines' \
  --set 'scraper.include[1]=Microsoft.ContainerService/managedClusters' \
  --set subscriptionID=0f9a3c2e-5b1d-4e8a-9c7f-2d6b8e4a1c30 \
  --set tenantID=7c1e2b9d-3a4f-4d6e-8b2a-9f0c1d2e3f4a

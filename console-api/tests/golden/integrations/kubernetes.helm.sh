helm repo add quarterdeck https://charts.quarterdeck.dev
helm repo update
helm install quarterdeck-kubernetes quarterdeck/quarterdeck-kubernetes \
  --namespace quarterdeck \
  --create-namespace \
  --set clusterName=prod-eu \
  --set 'labels.owner=SRE\, on call' \
  --set labels.tier=on \
  --set 'namespaceSelector.exclude[0]=kube-*' \
  --set 'namespaceSelector.exclude[1]=default' \
  --set 'scraper.exclusions.kinds[0]=Event' \
  --set 'scraper.exclusions.kinds[1]=Lease' \
  --set 'scraper.exclusions.labels.app\.kubernetes\.io/managed-by=skaffold' \
  --set-string scraper.exclusions.labels.ephemeral=true \
  --set 'scraper.retention.changes[0].age=7d' \
  --set 'scraper.retention.changes[0].name=Pulled' \
  --set 'scraper.retention.changes[1].count=100' \
  --set 'scraper.retention.changes[1].name=diff' \
  --set 'scraper.schedule=@every 30m' \
  --set 'scraper.watch[0].apiVersion=v1' \
  --set 'scraper.watch[0].kind=Pod' \
  --set 'scraper.watch[1].apiVersion=batch/v1' \
  --set 'scraper.watch[1].kind=Job' \
  --set topology.enabled=true

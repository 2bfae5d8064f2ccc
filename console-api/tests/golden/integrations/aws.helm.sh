helm repo add quarterdeck https://charts.quarterdeck.dev
helm repo update
helm install quarterdeck-aws quarterdeck/quarterdeck-aws \
  --namespace quarterdeck \
  --create-namespace \
  --set accessKey.valueFrom.secretKeyRef.key=AWS_ACCESS_KEY_ID \
  --set accessKey.valueFrom.secretKeyRef.name=aws-credentials \
  --set assumeRole=arn:aws:iam::123456789012:role/quarterdeck-scraper \
  --set 'clusterName=production account' \
  --set labels.cost-centre=0042 \
  --set labels.team=platform \
  --set region=eu-west-1 \
  --set 'regions[0]=us-east-1' \
  --set 'regions[1]=ap-southeast-2' \
  --set 'scraper.cloudtrail.excludeEvents[0]=AssumeRole' \
  --set 'scraper.cloudtrail.excludeEvents[1]=GetObject' \
  --set scraper.cloudtrail.maxAge=3d \
  --set scraper.costReporting.database=athenacurcfn_cur \
  --set scraper.costReporting.enabled=true \
  --set scraper.costReporting.region=us-east-1 \
  --set scraper.costReporting.s3BucketPath=s3://billing-reports/cur \
  --set scraper.costReporting.table=cur \
  --set 'scraper.exclude[0]=AWS::IAM::Policy' \
  --set 'scraper.exclude[1]=AWS::EC2::SecurityGroupRule' \
  --set 'scraper.schedule=@every 2h' \
  --set secretKey.valueFrom.secretKeyRef.key=AWS_SECRET_ACCESS_KEY \
  --set secretKey.valueFrom.secretKeyRef.name=aws-credentials

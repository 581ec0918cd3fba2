-- name: resource_activity
-- description: Admin Activity on resources whose name contains a term (a VM, bucket, service account or project name): who changed what, when and from where, one row per call.
-- tables: cloudaudit_googleapis_com_activity
-- param: resource STRING part of the resource name, e.g. etl-worker-1 or projects/_/buckets/my-bucket
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  timestamp,
  protopayload_auditlog.authenticationInfo.principalEmail AS principal,
  protopayload_auditlog.methodName AS method,
  protopayload_auditlog.resourceName AS resource,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.authenticationInfo.serviceAccountKeyName AS key_name,
  protopayload_auditlog.status.code AS status_code
FROM cloudaudit_googleapis_com_activity
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND STRPOS(LOWER(protopayload_auditlog.resourceName), LOWER(@resource)) > 0
ORDER BY timestamp

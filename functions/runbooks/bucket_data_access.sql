-- name: bucket_data_access
-- description: Who read or wrote objects in one bucket: per principal, method and caller IP, the number of calls, denied calls, first/last time and a sample object. Data Access logs do not record anonymous reads of public objects.
-- tables: cloudaudit_googleapis_com_data_access
-- param: bucket STRING bucket name, e.g. my-bucket
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  protopayload_auditlog.authenticationInfo.principalEmail AS principal,
  protopayload_auditlog.methodName AS method,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.authenticationInfo.serviceAccountKeyName AS key_name,
  COUNT(*) AS calls,
  COUNTIF(protopayload_auditlog.status.code IS NOT NULL AND protopayload_auditlog.status.code != 0) AS denied,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen,
  ANY_VALUE(protopayload_auditlog.resourceName) AS sample_object
FROM cloudaudit_googleapis_com_data_access
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND resource.type = 'gcs_bucket'
  AND resource.labels.bucket_name = @bucket
GROUP BY principal, method, caller_ip, key_name
ORDER BY calls DESC

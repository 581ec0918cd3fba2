-- name: data_access_by_resource
-- description: Data Access audit logging per service, method and bucket in a window: how many entries, the first and the last. A bucket read steadily that has no entry after some time shows where logging stopped (or the activity did); read next to logging_config_changes.
-- tables: cloudaudit_googleapis_com_data_access
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  protopayload_auditlog.serviceName AS service,
  protopayload_auditlog.methodName AS method,
  resource.labels.bucket_name AS bucket,
  COUNT(*) AS calls,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM cloudaudit_googleapis_com_data_access
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
GROUP BY service, method, bucket
ORDER BY last_seen

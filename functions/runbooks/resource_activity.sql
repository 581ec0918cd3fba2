-- name: resource_activity
-- description: Admin Activity on one resource and the resources under it: who changed what, when, from where and with which client, one row per call, with the start of the request (what the change set: a description, labels, ranges, a change reference). The name matches as whole path segments (web-1 is never web-10), or as the tail of a full resource name such as //compute.googleapis.com/projects/p/zones/z/instances/web-1.
-- tables: cloudaudit_googleapis_com_activity
-- param: resource STRING the resource name or its last segments, e.g. etl-worker-1, instances/etl-worker-1 or projects/_/buckets/my-bucket
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  timestamp,
  protopayload_auditlog.authenticationInfo.principalEmail AS principal,
  protopayload_auditlog.methodName AS method,
  protopayload_auditlog.resourceName AS resource,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.requestMetadata.callerSuppliedUserAgent AS user_agent,
  protopayload_auditlog.authenticationInfo.serviceAccountKeyName AS key_name,
  protopayload_auditlog.status.code AS status_code,
  SUBSTR(protopayload_auditlog.requestJson, 1, 600) AS request
FROM cloudaudit_googleapis_com_activity
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  -- Anchored on '/' both sides (decision 0046): the parameter is a run of whole segments of the
  -- logged name, or the logged (relative) name is the tail of the full name given.
  AND (
    STRPOS(CONCAT('/', LOWER(protopayload_auditlog.resourceName), '/'), CONCAT('/', LOWER(@resource), '/')) > 0
    OR ENDS_WITH(LOWER(@resource), CONCAT('/', LOWER(protopayload_auditlog.resourceName)))
  )
ORDER BY timestamp

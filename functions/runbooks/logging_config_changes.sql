-- name: logging_config_changes
-- description: Changes to what is logged, in a window: audit-log configuration removed or added by SetIamPolicy (one row per auditConfigDelta: service and log type, e.g. storage.googleapis.com DATA_READ) and log sink or exclusion changes (Logging ConfigServiceV2 create/update/delete): who, from which IP and user agent. When an activity's own logs stop, the change that stopped them is the evidence.
-- tables: cloudaudit_googleapis_com_activity
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  timestamp,
  protopayload_auditlog.authenticationInfo.principalEmail AS changed_by,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.requestMetadata.callerSuppliedUserAgent AS user_agent,
  protopayload_auditlog.methodName AS method,
  protopayload_auditlog.resourceName AS resource,
  delta.action AS action,
  delta.service AS logged_service,
  delta.logType AS log_type
FROM cloudaudit_googleapis_com_activity,
  UNNEST(protopayload_auditlog.servicedata_v1_iam.policyDelta.auditConfigDeltas) AS delta
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND LOWER(protopayload_auditlog.methodName) LIKE '%setiampolicy'
UNION ALL
SELECT
  timestamp,
  protopayload_auditlog.authenticationInfo.principalEmail AS changed_by,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.requestMetadata.callerSuppliedUserAgent AS user_agent,
  protopayload_auditlog.methodName AS method,
  protopayload_auditlog.resourceName AS resource,
  NULL AS action,
  NULL AS logged_service,
  NULL AS log_type
FROM cloudaudit_googleapis_com_activity
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND protopayload_auditlog.methodName LIKE 'google.logging.v2.ConfigServiceV2.%'
  AND protopayload_auditlog.methodName NOT LIKE 'google.logging.v2.ConfigServiceV2.Get%'
  AND protopayload_auditlog.methodName NOT LIKE 'google.logging.v2.ConfigServiceV2.List%'
ORDER BY timestamp

-- name: principal_activity
-- description: What one principal (user or service account) did: its audited API calls from Admin Activity and Data Access logs, grouped by log, method, caller IP, user agent and service-account key, with counts and first/last time. Shows where an account acted from and with which key.
-- tables: cloudaudit_googleapis_com_activity, cloudaudit_googleapis_com_data_access
-- param: principal STRING principal email, e.g. ci-deployer@my-project.iam.gserviceaccount.com
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH calls AS (
  SELECT 'activity' AS log, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) = LOWER(@principal)
  UNION ALL
  SELECT 'data_access' AS log, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_data_access
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) = LOWER(@principal)
)
SELECT
  log,
  p.methodName AS method,
  p.requestMetadata.callerIp AS caller_ip,
  p.requestMetadata.callerSuppliedUserAgent AS user_agent,
  p.authenticationInfo.serviceAccountKeyName AS key_name,
  COUNT(*) AS calls,
  COUNTIF(p.status.code IS NOT NULL AND p.status.code != 0) AS failed,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen,
  ANY_VALUE(p.resourceName) AS sample_resource
FROM calls
GROUP BY log, method, caller_ip, user_agent, key_name
ORDER BY first_seen

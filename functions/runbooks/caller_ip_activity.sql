-- name: caller_ip_activity
-- description: Every audited API call made from one caller IP, grouped by principal, method and user agent, from Admin Activity and Data Access logs. Shows which accounts were used from an address and what they did.
-- tables: cloudaudit_googleapis_com_activity, cloudaudit_googleapis_com_data_access
-- param: ip STRING an IP address, e.g. 203.0.113.7 (here: where the API calls came from)
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH calls AS (
  SELECT 'activity' AS log, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND protopayload_auditlog.requestMetadata.callerIp = @ip
  UNION ALL
  SELECT 'data_access' AS log, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_data_access
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND protopayload_auditlog.requestMetadata.callerIp = @ip
)
SELECT
  log,
  p.authenticationInfo.principalEmail AS principal,
  p.methodName AS method,
  p.requestMetadata.callerSuppliedUserAgent AS user_agent,
  p.authenticationInfo.serviceAccountKeyName AS key_name,
  COUNT(*) AS calls,
  COUNTIF(p.status.code IS NOT NULL AND p.status.code != 0) AS failed,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen,
  ANY_VALUE(p.resourceName) AS sample_resource
FROM calls
GROUP BY log, principal, method, user_agent, key_name
ORDER BY first_seen

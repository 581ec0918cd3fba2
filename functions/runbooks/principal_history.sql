-- name: principal_history
-- description: One principal's audited calls over a long look-back, per caller IP, caller network, user agent, access level (e.g. a managed-device level) and method: how many calls and on how many distinct days before the recent window began, and how many inside it. A recent row with no earlier days is a first-seen address, network or user agent; earlier days from the same address, or the same methods on many days, are the principal's habit.
-- tables: cloudaudit_googleapis_com_activity, cloudaudit_googleapis_com_data_access
-- param: principal STRING principal email, e.g. ci-deployer@my-project.iam.gserviceaccount.com
-- param: recent TIMESTAMP where the recent window begins (the finding's window start); earlier rows are history
-- param: start TIMESTAMP look-back start, ISO 8601, e.g. 30 days before the finding's window
-- param: end TIMESTAMP window end, ISO 8601
WITH calls AS (
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) = LOWER(@principal)
  UNION ALL
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_data_access
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) = LOWER(@principal)
),
grouped AS (
SELECT
  p.authenticationInfo.principalEmail AS principal,
  p.requestMetadata.callerIp AS caller_ip,
  p.requestMetadata.callerNetwork AS caller_network,
  p.requestMetadata.callerSuppliedUserAgent AS user_agent,
  ARRAY_TO_STRING(p.requestMetadata.requestAttributes.auth.accessLevels, ',') AS access_levels,
  p.methodName AS method,
  COUNTIF(timestamp < CAST(@recent AS TIMESTAMP)) AS calls_before,
  COUNT(DISTINCT IF(timestamp < CAST(@recent AS TIMESTAMP), CAST(timestamp AS DATE), NULL)) AS days_before,
  COUNTIF(timestamp >= CAST(@recent AS TIMESTAMP)) AS calls_recent,
  COUNTIF(p.status.code IS NOT NULL AND p.status.code != 0) AS failed,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM calls
GROUP BY principal, caller_ip, caller_network, user_agent, access_levels, method
)
SELECT
  *,
  -- Days the address itself was used before the window, whatever the method: 0 = first seen.
  MAX(days_before) OVER (PARTITION BY caller_ip) AS address_days_before
FROM grouped
-- Recent calls from first-seen addresses first, then the principal's habits: what a short page must keep.
ORDER BY IF(calls_recent > 0 AND address_days_before = 0, 0, 1), days_before DESC, calls_recent DESC

-- name: resource_changer_history
-- description: The history of whoever changed a resource, in one query: the principals that made a change (any method but get/list) on the resource itself (its full name, or a name ending in /<resource>) since the recent window began, and each one's audited calls over a long look-back, per caller IP, network, user agent, access level and method, with calls and distinct days before the recent window and calls inside it. For a finding that names a resource but no actor (a misconfiguration): a recent change from a first-seen address, or the same change from the same address on many earlier days (a schedule).
-- subject: actors
-- tables: cloudaudit_googleapis_com_activity, cloudaudit_googleapis_com_data_access
-- param: resource STRING the resource's name or its last path segment(s), e.g. allow-https-web or projects/my-project
-- param: recent TIMESTAMP where the recent window begins (the finding's window start); earlier rows are history
-- param: start TIMESTAMP look-back start, ISO 8601, e.g. 30 days before the finding's window
-- param: end TIMESTAMP window end, ISO 8601
WITH changers AS (
  SELECT DISTINCT LOWER(protopayload_auditlog.authenticationInfo.principalEmail) AS principal
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@recent AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    -- The resource itself, by its full name or its last path segments: not everything under it.
    AND (
      LOWER(protopayload_auditlog.resourceName) = LOWER(@resource)
      OR ENDS_WITH(LOWER(protopayload_auditlog.resourceName), CONCAT('/', LOWER(@resource)))
    )
    AND protopayload_auditlog.authenticationInfo.principalEmail IS NOT NULL
    AND NOT REGEXP_CONTAINS(LOWER(protopayload_auditlog.methodName), '(^|[.])(get|list)[a-z]*$')
),
calls AS (
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) IN (SELECT principal FROM changers)
  UNION ALL
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_data_access
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) IN (SELECT principal FROM changers)
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
  -- Days this principal used the address before the window, whatever the method: 0 = first seen.
  MAX(days_before) OVER (PARTITION BY principal, caller_ip) AS address_days_before
FROM grouped
ORDER BY IF(calls_recent > 0 AND address_days_before = 0, 0, 1), days_before DESC, calls_recent DESC

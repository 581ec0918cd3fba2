-- name: access_denied_then_allowed
-- description: Audited calls grouped by principal, caller IP and service, with how many were denied (status code set: 7 PERMISSION_DENIED, a VPC Service Controls violation in the Policy Denied log) and how many succeeded, the last denial and the first success after the first denial. A group denied first and succeeding later shows a control (IAM, a perimeter) that stopped an actor and then let it through, typically right after a configuration change.
-- tables: cloudaudit_googleapis_com_activity, cloudaudit_googleapis_com_data_access, cloudaudit_googleapis_com_policy
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH calls AS (
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  UNION ALL
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_data_access
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  UNION ALL
  SELECT timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_policy
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
),
marked AS (
  SELECT
    timestamp,
    p.authenticationInfo.principalEmail AS principal,
    p.requestMetadata.callerIp AS caller_ip,
    p.serviceName AS service,
    p.methodName AS method,
    p.status.message AS status_message,
    (p.status.code IS NOT NULL AND p.status.code != 0) AS denied
  FROM calls
),
first_denial AS (
  SELECT principal, caller_ip, service, MIN(timestamp) AS first_denied
  FROM marked
  WHERE denied
  GROUP BY principal, caller_ip, service
)
SELECT
  m.principal,
  m.caller_ip,
  m.service,
  COUNTIF(m.denied) AS denied,
  COUNTIF(NOT m.denied) AS allowed,
  MAX(IF(m.denied, m.timestamp, NULL)) AS last_denied,
  MIN(IF(NOT m.denied AND m.timestamp > f.first_denied, m.timestamp, NULL)) AS first_allowed_after_denial,
  MAX(IF(m.denied, m.status_message, NULL)) AS denial_reason,
  MAX(IF(m.denied, m.method, NULL)) AS denied_method,
  MAX(IF(NOT m.denied, m.method, NULL)) AS allowed_method,
  MIN(m.timestamp) AS first_seen,
  MAX(m.timestamp) AS last_seen
FROM marked AS m
JOIN first_denial AS f
  ON COALESCE(m.principal, '') = COALESCE(f.principal, '')
  AND COALESCE(m.caller_ip, '') = COALESCE(f.caller_ip, '')
  AND m.service = f.service
GROUP BY m.principal, m.caller_ip, m.service
ORDER BY denied DESC

-- name: service_account_key_activity
-- description: The keys of one service account: key creations and deletions (Admin Activity) and the calls each key authenticated (Admin Activity and Data Access), grouped by key, method and caller IP. Shows a key used from an unusual address or created for persistence.
-- tables: cloudaudit_googleapis_com_activity, cloudaudit_googleapis_com_data_access
-- param: service_account STRING service account email, e.g. backup@my-project.iam.gserviceaccount.com
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH key_admin AS (
  SELECT 'key_admin' AS kind, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND protopayload_auditlog.methodName LIKE '%ServiceAccountKey%'
    -- The account's resource or one under it (its keys): the email as a whole path segment after
    -- serviceAccounts/, so backdoor-deploy@… is never read as deploy@… (decision 0046).
    AND STRPOS(
      CONCAT(LOWER(protopayload_auditlog.resourceName), '/'),
      CONCAT('/serviceaccounts/', LOWER(@service_account), '/')
    ) > 0
),
key_use AS (
  SELECT 'key_use' AS kind, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_activity
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) = LOWER(@service_account)
    AND protopayload_auditlog.authenticationInfo.serviceAccountKeyName IS NOT NULL
  UNION ALL
  SELECT 'key_use' AS kind, timestamp, protopayload_auditlog AS p
  FROM cloudaudit_googleapis_com_data_access
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND LOWER(protopayload_auditlog.authenticationInfo.principalEmail) = LOWER(@service_account)
    AND protopayload_auditlog.authenticationInfo.serviceAccountKeyName IS NOT NULL
)
SELECT
  kind,
  p.authenticationInfo.principalEmail AS principal,
  p.methodName AS method,
  p.authenticationInfo.serviceAccountKeyName AS key_name,
  p.requestMetadata.callerIp AS caller_ip,
  p.requestMetadata.callerSuppliedUserAgent AS user_agent,
  COUNT(*) AS calls,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen,
  ANY_VALUE(p.resourceName) AS sample_resource,
  ANY_VALUE(p.responseJson) AS sample_response
FROM (SELECT * FROM key_admin UNION ALL SELECT * FROM key_use) AS events
GROUP BY kind, principal, method, key_name, caller_ip, user_agent
ORDER BY first_seen

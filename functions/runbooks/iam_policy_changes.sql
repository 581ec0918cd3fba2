-- name: iam_policy_changes
-- description: IAM policy changes (SetIamPolicy on projects, service accounts and other resources, storage.setIamPermissions on buckets) in a window, one row per binding added or removed: who changed it, from which IP, with which key, the role and the member. External members (gmail, other domains), allUsers and owner/editor grants stand out here.
-- tables: cloudaudit_googleapis_com_activity
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  timestamp,
  protopayload_auditlog.authenticationInfo.principalEmail AS changed_by,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.authenticationInfo.serviceAccountKeyName AS key_name,
  protopayload_auditlog.methodName AS method,
  protopayload_auditlog.resourceName AS resource,
  delta.action AS action,
  delta.role AS role,
  delta.member AS member
FROM cloudaudit_googleapis_com_activity,
  UNNEST(protopayload_auditlog.servicedata_v1_iam.policyDelta.bindingDeltas) AS delta
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND (LOWER(protopayload_auditlog.methodName) LIKE '%setiampolicy' OR protopayload_auditlog.methodName = 'storage.setIamPermissions')
ORDER BY timestamp

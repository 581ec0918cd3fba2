-- name: bucket_iam_changes
-- description: IAM and configuration changes on one bucket (storage.setIamPermissions, storage.buckets.update/create): who, from where, and each binding added or removed, with public_grant true for allUsers/allAuthenticatedUsers. The request JSON shows ACL and public-access-prevention changes.
-- tables: cloudaudit_googleapis_com_activity
-- param: bucket STRING bucket name, e.g. my-bucket
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  timestamp,
  protopayload_auditlog.authenticationInfo.principalEmail AS changed_by,
  protopayload_auditlog.requestMetadata.callerIp AS caller_ip,
  protopayload_auditlog.requestMetadata.callerSuppliedUserAgent AS user_agent,
  protopayload_auditlog.methodName AS method,
  delta.action AS action,
  delta.role AS role,
  delta.member AS member,
  delta.member IN ('allUsers', 'allAuthenticatedUsers') AS public_grant,
  protopayload_auditlog.requestJson AS request
FROM cloudaudit_googleapis_com_activity
  LEFT JOIN UNNEST(protopayload_auditlog.servicedata_v1_iam.policyDelta.bindingDeltas) AS delta ON TRUE
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND resource.type = 'gcs_bucket'
  AND resource.labels.bucket_name = @bucket
  AND protopayload_auditlog.methodName IN ('storage.setIamPermissions', 'storage.buckets.update', 'storage.buckets.create', 'storage.buckets.patch')
ORDER BY timestamp

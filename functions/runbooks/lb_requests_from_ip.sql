-- name: lb_requests_from_ip
-- description: Every request one client IP sent to the external Application Load Balancers, per backend service, status and Cloud Armor outcome: how many, which URLs (a sample), the matched WAF signatures, and first/last time. Answers whether a probe was refused at the edge (403, denied_by_security_policy) or reached a backend.
-- tables: requests
-- param: ip STRING the client IP address, e.g. 198.51.100.7
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  httpRequest.remoteIp AS remote_ip,
  resource.labels.backend_service_name AS backend_service,
  httpRequest.status AS http_status,
  jsonPayload.statusDetails AS status_details,
  jsonPayload.enforcedSecurityPolicy.name AS security_policy,
  jsonPayload.enforcedSecurityPolicy.outcome AS policy_outcome,
  ARRAY_TO_STRING(jsonPayload.enforcedSecurityPolicy.preconfiguredExprIds, ',') AS waf_rules,
  COUNT(*) AS requests,
  ANY_VALUE(httpRequest.requestUrl) AS sample_url,
  ANY_VALUE(httpRequest.userAgent) AS sample_user_agent,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM requests
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND httpRequest.remoteIp = @ip
GROUP BY remote_ip, backend_service, http_status, status_details, security_policy, policy_outcome, waf_rules
ORDER BY requests DESC

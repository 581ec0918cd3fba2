-- name: lb_requests_to_backend
-- description: Requests a load balancer backend service received, per client IP, status and Cloud Armor outcome, with counts, a sample URL and first/last time. Shows which clients the edge refused and which reached the backend.
-- tables: requests
-- param: backend_service STRING the backend service name, e.g. shop-web-backend
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  httpRequest.remoteIp AS remote_ip,
  resource.labels.backend_service_name AS backend_service,
  httpRequest.status AS http_status,
  jsonPayload.statusDetails AS status_details,
  jsonPayload.enforcedSecurityPolicy.name AS security_policy,
  jsonPayload.enforcedSecurityPolicy.outcome AS policy_outcome,
  COUNT(*) AS requests,
  ANY_VALUE(httpRequest.requestUrl) AS sample_url,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM requests
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND resource.labels.backend_service_name = @backend_service
GROUP BY remote_ip, backend_service, http_status, status_details, security_policy, policy_outcome
ORDER BY requests DESC
LIMIT 100

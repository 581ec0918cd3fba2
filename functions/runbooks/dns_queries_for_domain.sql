-- name: dns_queries_for_domain
-- description: Lookups of one domain and its subdomains: which VM asked, the exact name, record type, response code and answer (the IPs it resolved to), with counts and first/last time.
-- tables: dns_googleapis_com_dns_queries
-- param: domain STRING domain name without the trailing dot, e.g. pool.example.com
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  jsonPayload.vmInstanceName AS vm,
  jsonPayload.sourceIP AS source_ip,
  jsonPayload.queryName AS query_name,
  jsonPayload.queryType AS query_type,
  jsonPayload.responseCode AS response_code,
  jsonPayload.rdata AS answer,
  COUNT(*) AS queries,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM dns_googleapis_com_dns_queries
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND (
    RTRIM(LOWER(jsonPayload.queryName), '.') = LOWER(@domain)
    OR ENDS_WITH(RTRIM(LOWER(jsonPayload.queryName), '.'), CONCAT('.', LOWER(@domain)))
  )
GROUP BY vm, source_ip, query_name, query_type, response_code, answer
ORDER BY first_seen

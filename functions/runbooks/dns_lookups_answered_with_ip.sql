-- name: dns_lookups_answered_with_ip
-- description: Which names the VMs resolved to one IP address: lookups whose answer holds exactly that address (an A/AAAA record line ending in it), per VM, name, record type and response code, with counts and first/last time. Shows whether a workload reached an address by a name (and which) or by a hard-coded address (no lookup).
-- tables: dns_googleapis_com_dns_queries
-- param: ip STRING an IP address, e.g. 151.101.2.132
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
  AND jsonPayload.rdata IS NOT NULL
  -- Each answer line is "name<TAB>ttl<TAB>IN<TAB>type<TAB>address": a tab before and a line end after it make the match exact.
  AND STRPOS(CONCAT(jsonPayload.rdata, '\n'), CONCAT('\t', @ip, '\n')) > 0
GROUP BY vm, source_ip, query_name, query_type, response_code, answer
ORDER BY first_seen

-- name: dns_queries_from_instance
-- description: The names one VM resolved, rarest first: per name, record type and response code, the number of queries, first/last time and a sample answer. A new or rare domain next to the usual Google API names is what to look at.
-- tables: dns_googleapis_com_dns_queries
-- param: instance STRING VM name, e.g. etl-worker-1
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  jsonPayload.queryName AS query_name,
  jsonPayload.queryType AS query_type,
  jsonPayload.responseCode AS response_code,
  COUNT(*) AS queries,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen,
  ANY_VALUE(jsonPayload.rdata) AS sample_answer
FROM dns_googleapis_com_dns_queries
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND jsonPayload.vmInstanceName = @instance
GROUP BY query_name, query_type, response_code
ORDER BY queries ASC, first_seen

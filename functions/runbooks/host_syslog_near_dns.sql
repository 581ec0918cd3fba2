-- name: host_syslog_near_dns
-- description: What ran on each VM in the five minutes around its first lookup of a domain (and its subdomains): the syslog lines of that VM in that span, in time order. Shows which process or job made the lookup without a second query for the lookup's time.
-- tables: dns_googleapis_com_dns_queries, syslog
-- param: domain STRING domain name without the trailing dot, e.g. pool.example.com
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH first_lookup AS (
  SELECT jsonPayload.vmInstanceName AS dns_vm, MIN(timestamp) AS first_at
  FROM dns_googleapis_com_dns_queries
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND (
      RTRIM(LOWER(jsonPayload.queryName), '.') = LOWER(@domain)
      OR ENDS_WITH(RTRIM(LOWER(jsonPayload.queryName), '.'), CONCAT('.', LOWER(@domain)))
    )
  GROUP BY 1
)
SELECT
  s.timestamp,
  s.labels.compute_googleapis_com_resource_name AS host,
  s.textPayload
FROM syslog AS s
JOIN first_lookup AS l
  -- Cloud DNS names the VM as <project>.<vm> in some exports, the bare name in others.
  ON (l.dns_vm = s.labels.compute_googleapis_com_resource_name
    OR ENDS_WITH(l.dns_vm, CONCAT('.', s.labels.compute_googleapis_com_resource_name)))
WHERE s.timestamp BETWEEN TIMESTAMP_SUB(l.first_at, INTERVAL 5 MINUTE) AND TIMESTAMP_ADD(l.first_at, INTERVAL 5 MINUTE)
ORDER BY s.timestamp

-- name: vpc_flows_to_dns_answers
-- description: Whether the VMs that resolved a domain (and its subdomains) then connected to any address the lookup answered: per VM, answer IP and port, flow records, bytes and first/last time, only after the VM's first lookup. One query instead of a DNS lookup followed by one flow query per answer; no rows means no connection followed.
-- tables: dns_googleapis_com_dns_queries, compute_googleapis_com_vpc_flows
-- param: domain STRING domain name without the trailing dot, e.g. pool.example.com
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH lookups AS (
  SELECT
    jsonPayload.vmInstanceName AS dns_vm,
    CONCAT(jsonPayload.rdata, '\n') AS answers,
    MIN(timestamp) AS first_lookup
  FROM dns_googleapis_com_dns_queries
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND jsonPayload.rdata IS NOT NULL
    AND (
      RTRIM(LOWER(jsonPayload.queryName), '.') = LOWER(@domain)
      OR ENDS_WITH(RTRIM(LOWER(jsonPayload.queryName), '.'), CONCAT('.', LOWER(@domain)))
    )
  GROUP BY 1, 2
)
SELECT
  f.jsonPayload.src_instance.vm_name AS vm,
  f.jsonPayload.connection.src_ip AS vm_ip,
  f.jsonPayload.connection.dest_ip AS dest_ip,
  f.jsonPayload.connection.dest_port AS dest_port,
  COUNT(*) AS flows,
  SUM(CAST(f.jsonPayload.bytes_sent AS INT64)) AS bytes,
  MIN(f.timestamp) AS first_seen,
  MAX(f.timestamp) AS last_seen
FROM compute_googleapis_com_vpc_flows AS f
JOIN lookups AS l
  -- Cloud DNS names the VM as <project>.<vm> in some exports, the bare name in others.
  ON (l.dns_vm = f.jsonPayload.src_instance.vm_name OR ENDS_WITH(l.dns_vm, CONCAT('.', f.jsonPayload.src_instance.vm_name)))
  AND STRPOS(l.answers, CONCAT('\t', f.jsonPayload.connection.dest_ip, '\n')) > 0
  AND f.timestamp >= l.first_lookup
WHERE f.timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
GROUP BY 1, 2, 3, 4
ORDER BY flows DESC

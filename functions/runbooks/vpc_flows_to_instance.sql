-- name: vpc_flows_to_instance
-- description: Who connected to one VM: per source IP and destination port, the number of flow records, bytes, first/last time and the source country. Scanners and brute-force sources show up as many small flows to port 22 or 3389.
-- tables: compute_googleapis_com_vpc_flows
-- param: instance STRING VM name, e.g. web-frontend-1
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  jsonPayload.connection.src_ip AS src_ip,
  jsonPayload.connection.dest_port AS dest_port,
  jsonPayload.src_instance.vm_name IS NULL AS external,
  ANY_VALUE(jsonPayload.src_location.country) AS src_country,
  COUNT(*) AS flows,
  SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM compute_googleapis_com_vpc_flows
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND jsonPayload.dest_instance.vm_name = @instance
GROUP BY src_ip, dest_port, external
ORDER BY flows DESC, bytes DESC

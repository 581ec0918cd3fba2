-- name: vpc_flows_from_instance
-- description: Where one VM connected to: per destination IP, port and protocol, the number of flow records, bytes sent, first/last time and, for external peers, the country. Many regular flows to one external address (a beacon, a mining pool, exfiltration) rank first.
-- tables: compute_googleapis_com_vpc_flows
-- param: instance STRING VM name, e.g. etl-worker-1
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  jsonPayload.connection.dest_ip AS dest_ip,
  jsonPayload.connection.dest_port AS dest_port,
  jsonPayload.connection.protocol AS protocol,
  jsonPayload.dest_instance.vm_name IS NULL AS external,
  ANY_VALUE(jsonPayload.dest_location.country) AS dest_country,
  COUNT(*) AS flows,
  SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes_sent,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM compute_googleapis_com_vpc_flows
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND jsonPayload.src_instance.vm_name = @instance
GROUP BY dest_ip, dest_port, protocol, external
ORDER BY flows DESC, bytes_sent DESC

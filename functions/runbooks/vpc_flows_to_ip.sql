-- name: vpc_flows_to_ip
-- description: Every flow to or from one IP address: per VM, direction, remote port and protocol, the number of flow records, distinct sessions (local ports), bytes, and first/last time. Answers which VMs talked to an address (e.g. one the finding itself names), on which ports, how much and for how long.
-- tables: compute_googleapis_com_vpc_flows
-- param: ip STRING the remote IP address, e.g. 203.0.113.7
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  IF(jsonPayload.connection.dest_ip = @ip, 'to_ip', 'from_ip') AS direction,
  IF(jsonPayload.connection.dest_ip = @ip, jsonPayload.src_instance.vm_name, jsonPayload.dest_instance.vm_name) AS vm,
  IF(jsonPayload.connection.dest_ip = @ip, jsonPayload.connection.src_ip, jsonPayload.connection.dest_ip) AS vm_ip,
  IF(jsonPayload.connection.dest_ip = @ip, jsonPayload.connection.dest_port, jsonPayload.connection.src_port) AS remote_port,
  jsonPayload.connection.protocol AS protocol,
  COUNT(*) AS flows,
  COUNT(DISTINCT IF(jsonPayload.connection.dest_ip = @ip, jsonPayload.connection.src_port, jsonPayload.connection.dest_port)) AS sessions,
  SUM(CAST(jsonPayload.bytes_sent AS INT64)) AS bytes,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen
FROM compute_googleapis_com_vpc_flows
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND (jsonPayload.connection.dest_ip = @ip OR jsonPayload.connection.src_ip = @ip)
GROUP BY direction, vm, vm_ip, remote_port, protocol
ORDER BY flows DESC, bytes DESC

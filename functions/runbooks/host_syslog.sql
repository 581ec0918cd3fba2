-- name: host_syslog
-- description: The syslog lines of one VM in time order (sshd, sudo, cron, systemd, applications). Page through it, or use host_syslog_search to find a term.
-- tables: syslog
-- param: instance STRING VM name, e.g. etl-worker-1
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT timestamp, textPayload AS line
FROM syslog
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND labels.compute_googleapis_com_resource_name = @instance
ORDER BY timestamp

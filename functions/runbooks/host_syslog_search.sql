-- name: host_syslog_search
-- description: The syslog lines of one VM that contain a term (case-insensitive), in time order: a binary path, a user name, an IP, a program such as sudo or CRON.
-- tables: syslog
-- param: instance STRING VM name, e.g. etl-worker-1
-- param: term STRING text to look for, e.g. /tmp/ or sudo
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT timestamp, textPayload AS line
FROM syslog
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND labels.compute_googleapis_com_resource_name = @instance
  AND STRPOS(LOWER(textPayload), LOWER(@term)) > 0
ORDER BY timestamp

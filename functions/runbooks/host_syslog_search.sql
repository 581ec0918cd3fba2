-- name: host_syslog_search
-- description: The syslog lines of one VM that contain a term (case-insensitive), in time order: a binary path, a user name, an IP, a program such as sudo or CRON. A term never matches inside a longer name: where it begins or ends with a letter, digit or one of _ . @ -, the line must not continue that name there (10.0.0.1 is not 10.0.0.12, deploy is not backdoor-deploy).
-- tables: syslog
-- param: instance STRING VM name, e.g. etl-worker-1
-- param: term STRING text to look for, e.g. /tmp/ or sudo
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT timestamp, textPayload AS line
FROM syslog
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND labels.compute_googleapis_com_resource_name = @instance
  -- The term as literal text (\Q…\E, a \E inside it escaped), bounded where its own edge is a
  -- name character by the line's edge or a character that is not one (decision 0046).
  AND REGEXP_EXTRACT(
    LOWER(textPayload),
    CONCAT(
      IF(REGEXP_EXTRACT(LOWER(@term), '^[\\p{L}\\p{N}_.@-]') <> '', '(?:^|[^\\p{L}\\p{N}_.@-])', ''),
      '\\Q', REPLACE(LOWER(@term), '\\E', '\\E\\\\E\\Q'), '\\E',
      IF(REGEXP_EXTRACT(LOWER(@term), '[\\p{L}\\p{N}_.@-]$') <> '', '(?:$|[^\\p{L}\\p{N}_.@-])', '')
    )
  ) <> ''
ORDER BY timestamp

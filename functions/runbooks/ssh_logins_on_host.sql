-- name: ssh_logins_on_host
-- description: sshd outcomes on one VM per source IP: accepted logins, failed passwords, invalid users and connections closed before authentication, with counts and first/last time, accepted logins first. Shows whether any brute-force source ever got in and who normally logs in.
-- tables: syslog
-- param: instance STRING VM name, e.g. etl-worker-1
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
WITH lines AS (
  SELECT
    timestamp,
    textPayload,
    SUBSTR(textPayload, STRPOS(textPayload, ' from ') + 6) AS after_from
  FROM syslog
  WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
    AND labels.compute_googleapis_com_resource_name = @instance
    AND STRPOS(textPayload, ' sshd[') > 0
    AND STRPOS(textPayload, ' from ') > 0
    AND STRPOS(textPayload, ' port ') > 0
)
SELECT
  SUBSTR(after_from, 1, STRPOS(after_from, ' ') - 1) AS source_ip,
  CASE
    WHEN STRPOS(textPayload, 'Accepted ') > 0 THEN 'accepted'
    WHEN STRPOS(textPayload, 'Failed password') > 0 THEN 'failed_password'
    WHEN STRPOS(textPayload, 'Invalid user') > 0 THEN 'invalid_user'
    WHEN STRPOS(textPayload, '[preauth]') > 0 THEN 'closed_before_auth'
    ELSE 'other'
  END AS outcome,
  COUNT(*) AS lines,
  MIN(timestamp) AS first_seen,
  MAX(timestamp) AS last_seen,
  ANY_VALUE(textPayload) AS sample_line
FROM lines
GROUP BY source_ip, outcome
ORDER BY outcome = 'accepted' DESC, lines DESC

-- name: ssh_logins_from_ip
-- description: sshd outcomes for one source IP on every VM: accepted logins, failed passwords, invalid users and connections closed before authentication, with counts and first/last time. An accepted login after many failures means the guessing worked.
-- tables: syslog
-- param: ip STRING source IP address, e.g. 198.51.100.7
-- param: start TIMESTAMP window start, ISO 8601, anchored on the finding's eventTime
-- param: end TIMESTAMP window end, ISO 8601
SELECT
  labels.compute_googleapis_com_resource_name AS vm,
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
FROM syslog
WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)
  AND STRPOS(textPayload, ' sshd[') > 0
  AND STRPOS(textPayload, CONCAT(' ', @ip, ' port ')) > 0
GROUP BY vm, outcome
ORDER BY vm, first_seen

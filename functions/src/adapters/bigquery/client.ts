import { BigQuery, type BigQueryOptions } from "@google-cloud/bigquery";
import { OAuth2Client } from "google-auth-library";

export interface BigQueryClientOptions {
  /** Project that runs and pays for the jobs. */
  jobProject: string;
  /** Another endpoint than https://bigquery.googleapis.com (tests: a local replay server). */
  apiEndpoint?: string | undefined;
  /** Credentials other than ADC (tests: a client holding a static token). */
  authClient?: BigQueryOptions["authClient"];
  /** Retries of 429/5xx/rate-limit answers inside the library, with its backoff. */
  maxRetries?: number | undefined;
}

/** The client library's BigQuery, billing jobs to `jobProject`. */
export function createBigQueryClient(options: BigQueryClientOptions): BigQuery {
  const maxRetries = options.maxRetries ?? 2;
  const client = new BigQuery({
    projectId: options.jobProject,
    ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint } : {}),
    ...(options.authClient ? { authClient: options.authClient } : {}),
    retryOptions: { autoRetry: maxRetries > 0, maxRetries },
  });
  // Job.getQueryResults copies its client-side `skipParsing` switch into the query string;
  // jobs.getQueryResults has no such parameter, so it never leaves the process.
  client.interceptors.push({
    request: (request) => {
      if (request.qs && typeof request.qs === "object") delete request.qs.skipParsing;
      // The library's interceptor type takes request's Options and returns its own; same object.
      return request as Parameters<BigQuery["request"]>[0];
    },
  });
  return client;
}

/**
 * Client options for a local BigQuery stand-in at a loopback `endpoint`
 * (FERRET_BIGQUERY_API_ENDPOINT): the library's own requests, with a token that never leaves
 * the machine, so neither ADC nor the metadata server is consulted.
 */
export function localBigQueryOptions(
  endpoint: string,
): Pick<BigQueryClientOptions, "apiEndpoint" | "authClient"> {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: "local-stand-in", expiry_date: Date.now() + 24 * 3_600_000 });
  return { apiEndpoint: endpoint, authClient };
}

/**
 * A value built on first use and kept for the life of the process: a role's code, a
 * function's handler, its runtime, an adapter whose library is slow to load (the Workflows
 * client, the Slack SDK, DuckDB, a STIX bundle). Callers that arrive while it is being built
 * share the one build.
 *
 * The retry rule, the same everywhere: a build that fails is not kept. The caller that asked
 * gets the error, and the next use builds again (the configuration, the file or the network
 * may have been fixed), so one bad start does not poison a warm instance for good.
 */
export interface Lazy<T> {
  (): Promise<T>;
  /**
   * What an earlier use built or is building, without starting a build; the value is then
   * forgotten (the next use builds again). For closing what was opened, and only that.
   */
  drop(): Promise<T> | undefined;
}

export function lazy<T>(build: () => T | Promise<T>): Lazy<T> {
  let building: Promise<T> | undefined;
  const get = (): Promise<T> => {
    if (building) return building;
    // A synchronous throw becomes this build's rejection, under the same rule.
    const attempt: Promise<T> = Promise.resolve()
      .then(build)
      .catch((error: unknown) => {
        if (building === attempt) building = undefined;
        throw error;
      });
    building = attempt;
    return attempt;
  };
  return Object.assign(get, {
    drop: (): Promise<T> | undefined => {
      const built = building;
      building = undefined;
      return built;
    },
  });
}

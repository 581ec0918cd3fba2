/** Reads a secret's value by name when it is needed; the value is never logged or stored. */
export interface SecretSource {
  /** `name`: a short secret id, or projects/P/secrets/S[/versions/V]. */
  read(name: string): Promise<string>;
}

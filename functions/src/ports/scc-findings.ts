/**
 * Write-back to Security Command Center: what ferret and the analyst concluded, on the
 * finding itself. Every call sets a value (never toggles), so repeating one is harmless.
 */
export interface SccFindings {
  /** Sets these security marks on the finding, leaving its other marks alone. */
  setSecurityMarks(findingName: string, marks: Record<string, string>): Promise<void>;
  setMute(findingName: string): Promise<void>;
  /** State INACTIVE: the finding no longer needs attention. */
  setInactive(findingName: string, at: Date): Promise<void>;
}

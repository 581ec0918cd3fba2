/**
 * Slack-shaped message timestamps ("seconds.micro-sequence") for sinks that do not talk to
 * Slack, so threads keep working: strictly increasing within a process.
 */
export class SyntheticTs {
  private seq = 0;
  private readonly now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.now = now;
  }

  next(): string {
    this.seq += 1;
    const seconds = Math.floor(this.now().getTime() / 1000);
    return `${seconds}.${String(this.seq).padStart(6, "0")}`;
  }
}

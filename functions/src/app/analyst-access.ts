import type { ChatInteractions } from "../ports/chat-sink.js";

export interface AccessRules {
  allowedUsers: readonly string[];
  allowedUserGroups: readonly string[];
}

const GROUP_TTL_MS = 5 * 60_000;

/**
 * Who may act on ferret's verdicts from Slack: listed users, and members of listed user
 * groups. Group members are fetched with usergroups.users.list and kept for five minutes per
 * instance, so a click does not wait on Slack twice inside its 3-second window. Nobody is
 * allowed when nothing is configured: a button anyone in the channel can press must not mute
 * findings.
 */
export class AnalystAccess {
  private readonly groups = new Map<string, { members: Set<string>; at: number }>();

  constructor(
    private readonly rules: AccessRules,
    private readonly directory: Pick<ChatInteractions, "groupMembers"> | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async allows(userId: string): Promise<boolean> {
    if (this.rules.allowedUsers.includes(userId)) return true;
    if (!this.directory) return false;
    for (const group of this.rules.allowedUserGroups) {
      if ((await this.membersOf(group)).has(userId)) return true;
    }
    return false;
  }

  private async membersOf(group: string): Promise<Set<string>> {
    const cached = this.groups.get(group);
    const now = this.now().getTime();
    if (cached && now - cached.at < GROUP_TTL_MS) return cached.members;
    const members = new Set(
      await (this.directory as Pick<ChatInteractions, "groupMembers">).groupMembers(group),
    );
    this.groups.set(group, { members, at: now });
    return members;
  }
}

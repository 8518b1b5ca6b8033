import type { ArchiveEdit } from '../edit.ts';
import type { Message } from '../message.ts';

/**
 * What archiving (tiancai's maybeSummarizeToolResults) makes of messages, in one place so the view,
 * the history as shown and every surface that prints it agree. The log itself is never rewritten: an
 * archive is an edit, and these are how its targets and its digest read.
 */

/** tiancai: "tool_result_archived (hidden old tool output)". */
export const ARCHIVED_RESULT_KIND = 'tool_result_archived';
/** tiancai: "tool_summary (summary/digest message)". */
export const TOOL_SUMMARY_KIND = 'tool_summary';

/**
 * An archived tool result as the history shows it (tiancai): "AgentVisible=false, UserVisible preserved
 * from the original message, Kind=tool_result_archived". Same id and seq: it is the logged message.
 */
export function archivedMessage(message: Message): Message {
  return { ...message, meta: { ...message.meta, agentVisible: false, kind: ARCHIVED_RESULT_KIND } };
}

/**
 * The one digest message an archive adds (tiancai): "Role=user, AgentVisible=true, UserVisible=false,
 * Kind=tool_summary", shown right after the log message the archive anchored it to.
 */
export function archiveDigestMessage(archive: ArchiveEdit): Message {
  return {
    id: `digest-${archive.id}`,
    seq: archive.digestAfterSeq,
    role: 'user',
    parts: [{ type: 'text', text: archive.digest }],
    meta: { kind: TOOL_SUMMARY_KIND, agentVisible: true, userVisible: false },
  };
}

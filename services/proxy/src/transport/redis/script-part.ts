/**
 * One module's share of a script that several modules run as one command (`admission.ts`): the
 * module has added its keys and arguments to the command's, and knows what its piece of the
 * answer means, or, when the script failed (Redis down or slow), what to answer instead by its own
 * fail-open rule. A module's own single-part command uses the same part through `answerOf`.
 */
export interface ScriptPart<Reply, Answer> {
  read(reply: Reply): Answer;
  failed(error: unknown): Answer | Promise<Answer>;
}

/** The part's answer to a command that carried it alone. */
export async function answerOf<Reply, Answer>(
  part: ScriptPart<Reply, Answer>,
  reply: Promise<Reply>,
): Promise<Answer> {
  try {
    return part.read(await reply);
  } catch (error) {
    return part.failed(error);
  }
}

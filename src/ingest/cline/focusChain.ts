/**
 * The focus chain (todo list) instructions Cline adds to a user message after the tools' results
 * and before the environment details (FocusChainManager.generateFocusChainInstructions): "# TODO
 * LIST UPDATE REQUIRED …", "# task_progress RECOMMENDED", "# Todo List (Optional - Plan Mode)", …
 * They are the extension's words to the model: neither the person's nor part of a result.
 */

const HEADING = /^# (?:task_progress|TODO LIST|Todo List)\b/;

export const isFocusChainInstructions = (text: string): boolean => HEADING.test(text.trimStart());

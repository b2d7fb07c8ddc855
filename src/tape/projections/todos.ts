import * as z from 'zod';
import type { Entry } from '../entry';
import { decidesEffectiveness, factOf, foldReduction, type FactLog } from './foldedLog';
import type { Projection } from './projection';
import { appendLog, emptyLog } from './sharedLog';

/** The agent's todo list: each `todo_write` call states the whole list, so the last one wins. */
export const TODO_TOOL = 'todo_write';

const todo = z.object({
  // Models emit numeric ids as often as string ones; both name the same item.
  id: z.union([z.string().min(1), z.number()]).transform(String),
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'done']),
});
const todoInput = z.object({ todos: z.array(todo) });

export type Todo = z.infer<typeof todo>;

export interface TodosView {
  readonly todos: readonly Todo[];
  /** The call the list comes from, so the UI can link to it. */
  readonly entryId: number | null;
}

/** Message rows, retractions and `todo_write` calls with their list (null when malformed). */
export type TodosState = FactLog<readonly Todo[] | null>;

const folded = foldReduction<readonly Todo[] | null>();

/**
 * The list of the last effective `todo_write` call: a call of a retracted message, of a message that
 * was never sent, or replaced by a revised row of the same call does not count.
 */
export const todosProjection: Projection<TodosState, TodosView> = {
  key: 'todos',
  version: 2,
  init: () => emptyLog(),
  apply(state: TodosState, entry: Entry): TodosState {
    if (entry.kind === 'tool_call' && entry.name === TODO_TOOL) {
      const input = todoInput.safeParse(entry.payload.input);
      return appendLog(state, factOf(entry, input.success ? input.data.todos : null));
    }
    return decidesEffectiveness(entry) ? appendLog(state, factOf(entry)) : state;
  },
  view(state: TodosState): TodosView {
    const { fold, values } = folded.of(state);
    const calls = fold.toolCalls;
    // A malformed call is the model's mistake; it must not wipe a good list.
    for (let i = calls.length - 1; i >= 0; i--) {
      const todos = values.get(calls[i].entryId);
      if (todos) return { todos, entryId: calls[i].entryId };
    }
    return { todos: [], entryId: null };
  },
};

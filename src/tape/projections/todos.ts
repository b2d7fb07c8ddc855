import * as z from 'zod';
import type { Entry } from '../entry';
import type { Projection } from './projection';

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

export interface TodosState {
  readonly todos: readonly Todo[];
  /** The call the list comes from, so the UI can link to it. */
  readonly entryId: number | null;
}

export const todosProjection: Projection<TodosState> = {
  key: 'todos',
  version: 1,
  init: () => ({ todos: [], entryId: null }),
  apply(state: TodosState, entry: Entry): TodosState {
    if (entry.kind !== 'tool_call' || entry.name !== TODO_TOOL) return state;
    const input = todoInput.safeParse(entry.payload.input);
    // A malformed call is the model's mistake; it must not wipe a good list.
    return input.success ? { todos: input.data.todos, entryId: entry.entryId } : state;
  },
};

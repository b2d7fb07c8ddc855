import * as vscode from 'vscode';
import type { SessionSearch, SessionSearchHit } from '../../tape/search/sessionSearch';
import { agentLabel } from '../agentLabel';
import { pickQuery } from './pickQuery';

/** How long typing must pause before the query runs. */
const DEBOUNCE_MS = 150;
const DAY_MS = 86_400_000;

interface HitItem extends vscode.QuickPickItem {
  hit: SessionSearchHit;
}

/** What the buttons chose; the query's own `agent:`/`since:`/`until:` words add to it. */
interface Buttons {
  agents: string[];
  range: DateRange;
}

interface DateRange {
  label: string;
  /** Where the range starts, from now; null: any time. */
  from: (now: Date) => number | null;
}

const startOfToday = (now: Date): number => new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
const ANY_TIME: DateRange = { label: 'Any time', from: () => null };
const RANGES: readonly DateRange[] = [
  { label: 'Today', from: startOfToday },
  { label: 'Last 7 days', from: (now) => startOfToday(now) - 6 * DAY_MS },
  { label: 'Last 30 days', from: (now) => startOfToday(now) - 29 * DAY_MS },
  ANY_TIME,
];

const shownDate = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};
/** A label is text: `$(name)` in tape text must not turn into an icon. */
export const plain = (text: string): string => text.replace(/\$\(/g, '\\$(');

const AGENTS_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('filter'), tooltip: 'Filter by Agent…' };
const DATES_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('calendar'), tooltip: 'Filter by Date…' };

export interface PickedHit {
  hit: SessionSearchHit;
  /** The hits shown when it was picked, best first. */
  shown: SessionSearchHit[];
}

/**
 * The Search All Sessions QuickPick: searches as the user types (debounced), one item per hit
 * (the snippet; the agent, session title and date; the entry), with buttons that filter by agent
 * and date range beside the query's own filter words. Resolves to the hit accepted, or undefined.
 * `detail(hit)` names the entry as the inspector numbers it.
 */
export function pickSearchHit(
  index: SessionSearch,
  initial: string,
  detail: (hit: SessionSearchHit) => string,
  log: vscode.LogOutputChannel,
): Promise<PickedHit | undefined> {
  const pick = vscode.window.createQuickPick<HitItem>();
  pick.title = 'Search All Sessions';
  pick.placeholder = 'Words to find in every session; agent:NAME, since:YYYY-MM-DD and until:YYYY-MM-DD filter';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  // The hits come ranked; VS Code would sort items that match the typed text by their label. The
  // setter is the proposed quickPickSortByLabel's, which the extension host (1.139) honours as is.
  Object.assign(pick, { sortByLabel: false });
  pick.buttons = [AGENTS_BUTTON, DATES_BUTTON];
  pick.value = initial;
  const filters: Buttons = { agents: [], range: ANY_TIME };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let choosingFilter = false;
  /** The query the items are of: VS Code echoes the value set at the start as a change. */
  let ran: string | undefined;

  const run = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    ran = pick.value;
    const { hits, total, exact, text, problems } = pickQuery(index, pick.value, { agents: filters.agents, from: filters.range.from(new Date()) });
    pick.items = hits.map((hit) => ({
      label: plain(hit.snippet.text),
      description: `${agentLabel(hit.agent)} · ${hit.title ?? hit.sessionId} · ${shownDate(hit.sessionStartedAt)}`,
      detail: detail(hit),
      alwaysShow: true,
      hit,
    }));
    if (pick.items.length > 0) pick.activeItems = [pick.items[0]];
    const filtering = [
      ...(filters.agents.length > 0 ? [filters.agents.map(agentLabel).join(', ')] : []),
      ...(filters.range === ANY_TIME ? [] : [filters.range.label]),
    ];
    const counted =
      text === ''
        ? ''
        : total === 0
          ? 'no matches'
          : total > hits.length
            ? `${hits.length} of ${exact ? '' : 'about '}${total} matches`
            : `${total} match${total === 1 ? '' : 'es'}`;
    pick.title = ['Search All Sessions', counted, ...filtering, ...problems].filter(Boolean).join(' · ');
    pick.busy = false;
    if (text !== '') log.info(`Search All Sessions: ${hits.length} shown of ${total} for ${JSON.stringify(pick.value)}`);
  };
  const schedule = (delay: number): void => {
    if (timer !== undefined) clearTimeout(timer);
    pick.busy = true;
    timer = setTimeout(run, delay);
  };

  const chooseAgents = async (): Promise<void> => {
    const agents = index.agents();
    const items = agents.map((a) => ({
      label: agentLabel(a.agent),
      description: `${a.sessions} session${a.sessions === 1 ? '' : 's'}`,
      agent: a.agent,
      picked: filters.agents.includes(a.agent),
    }));
    const chosen = await vscode.window.showQuickPick(items, { title: 'Search All Sessions: agents (none: all)', canPickMany: true });
    if (chosen !== undefined) filters.agents = chosen.map((c) => c.agent);
  };
  const chooseRange = async (): Promise<void> => {
    const chosen = await vscode.window.showQuickPick(
      RANGES.map((r) => ({ label: r.label, range: r, description: r === filters.range ? 'current' : undefined })),
      { title: 'Search All Sessions: when' },
    );
    if (chosen !== undefined) filters.range = chosen.range;
  };

  return new Promise((resolve) => {
    let done = false;
    const finish = (value: PickedHit | undefined): void => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      resolve(value);
      pick.dispose();
    };
    pick.onDidChangeValue((value) => {
      if (value !== ran) schedule(DEBOUNCE_MS);
    });
    pick.onDidTriggerButton(async (button) => {
      // The second pick hides this one; it comes back with the filter applied.
      choosingFilter = true;
      try {
        await (button === AGENTS_BUTTON ? chooseAgents() : chooseRange());
      } finally {
        choosingFilter = false;
      }
      pick.show();
      schedule(0);
    });
    pick.onDidAccept(() => {
      // Enter before the pause that runs the typed query: it runs now, and Enter takes its best hit.
      if (timer !== undefined) run();
      const item = pick.activeItems[0];
      if (item !== undefined) finish({ hit: item.hit, shown: pick.items.map((i) => i.hit) });
    });
    pick.onDidHide(() => {
      if (!choosingFilter) finish(undefined);
    });
    pick.show();
    // The first query runs after the pick shows (busy), so it opens at once.
    schedule(0);
  });
}

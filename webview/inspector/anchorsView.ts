import type { AnchorItem } from '../../src/protocol/inspector';
import { badge, h, prettyJson, time } from './dom';

/** The anchors as a timeline, oldest first; the one the next request starts from is marked "in force". */
export class AnchorsView {
  readonly element = h('ol', { class: 'timeline', 'aria-label': 'Anchors' });

  set(items: AnchorItem[]): void {
    if (items.length === 0) {
      this.element.replaceChildren(h('li', { class: 'muted' }, 'No anchors in this session.'));
      return;
    }
    this.element.replaceChildren(
      ...items.map((a) =>
        h(
          'li',
          { class: a.inForce ? 'anchor in-force' : 'anchor', 'aria-current': a.inForce ? 'true' : undefined },
          h(
            'header',
            {},
            h('span', { class: 'anchor-name' }, a.name),
            ' ',
            a.inForce ? badge('in force', 'marker-in-force') : null,
            h('span', { class: 'muted' }, ` #${a.entryId} · ${time(a.createdAt)}`),
          ),
          h('h4', {}, 'State'),
          h('pre', { class: 'json' }, prettyJson(a.state)),
          h('h4', {}, 'Checkpoint'),
          a.checkpoint === null ? h('p', { class: 'muted' }, 'None') : h('pre', { class: 'checkpoint' }, a.checkpoint),
        ),
      ),
    );
  }
}

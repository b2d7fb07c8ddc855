import { OpenTape } from '../../../src/agent/session/openTape';
import type { InspectorSource } from '../../../src/inspector/inspectorController';
import type { TapeStore } from '../../../src/store/tapeStore';

/** What a host hands the controller: the store with its open tape's lineage reader. */
export const inspectorSource = (store: TapeStore, label: string, readOnly: boolean): InspectorSource => ({
  store,
  reader: new OpenTape(store).reader,
  label,
  readOnly,
});

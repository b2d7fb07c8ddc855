import { contextPressureProjection } from './contextPressure';
import { ProjectionRegistry, type AnyProjection } from './projection';
import { titleProjection } from './title';
import { todosProjection } from './todos';
import { tokenUsageProjection } from './tokenUsage';
import { toolStatsProjection } from './toolStats';

/** The projections the product ships (the effective view itself is the fold, see ../fold.ts). */
export const builtinProjections = (): AnyProjection[] => [
  titleProjection,
  todosProjection,
  toolStatsProjection,
  tokenUsageProjection,
  contextPressureProjection,
];

/** A registry holding the built-ins, for a host to extend with its own. */
export const createProjectionRegistry = (): ProjectionRegistry => new ProjectionRegistry(builtinProjections());

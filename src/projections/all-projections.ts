import type { Projection } from './projection';
import { directoryProjection } from './directory/directory-projection';
import { resourceProjection } from './resources/resource-projection';

/** Applied in this order to each event. */
export const allProjections: readonly Projection[] = [directoryProjection, resourceProjection];

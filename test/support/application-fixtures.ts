import type { ApplicationRecord } from '../../src/applications/application-projection';

/**
 * An application as the directory feeds it (the data of ApplicationUpserted) and as the read
 * model stores it: every optional field empty unless `over` sets it.
 */
export const application = (applicationId: number, over: Partial<ApplicationRecord> = {}): ApplicationRecord => ({
  applicationId,
  applicationDefinitionId: 5,
  name: `Application ${applicationId}`,
  submittedAt: '2025-02-01T00:00:00.000Z',
  tags: [],
  country: null,
  stage: null,
  industry: null,
  sdgs: [],
  userInterests: [],
  ...over,
});

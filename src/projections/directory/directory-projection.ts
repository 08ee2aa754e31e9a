import type { DirectoryEvent } from '../../domain/directory/directory-events';
import { DIRECTORY_STREAM } from '../../domain/directory/directory-events';
import type { RecordedEvent } from '../../infra/event-store/event-store';
import type { IndexSpec, ReadStore } from '../../infra/read-store/read-store';
import type { Projection } from '../projection';
import { DIR } from './directory-collections';

const indexes: IndexSpec[] = [
  { collection: DIR.communityMembers, keys: { userId: 1 }, name: 'by_user' },
  { collection: DIR.communityMembers, keys: { communityId: 1, userId: 1 }, name: 'by_community_user', unique: true },
  { collection: DIR.projectMembers, keys: { userId: 1 }, name: 'by_user' },
  { collection: DIR.circleMembers, keys: { userId: 1 }, name: 'by_user' },
  { collection: DIR.communityProjects, keys: { projectId: 1, communityId: 1 }, name: 'by_project_community' },
  { collection: DIR.circles, keys: { circleId: 1 }, name: 'by_circle' },
  { collection: DIR.applications, keys: { applicationDefinitionId: 1, submittedAt: -1 }, name: 'by_definition' },
];

/**
 * Upserts replace the whole record, removals delete it: applying an event twice leaves the same
 * documents, which is the idempotence the runner relies on.
 */
export const directoryProjection: Projection = {
  name: 'directory',
  collections: Object.values(DIR),
  indexes,
  async apply(recorded: RecordedEvent, store: ReadStore): Promise<void> {
    if (recorded.streamId !== DIRECTORY_STREAM) return;
    const event = { type: recorded.type, data: recorded.data } as DirectoryEvent;
    const col = store.collection.bind(store);
    switch (event.type) {
      case 'UserUpserted': {
        const d = event.data;
        return col(DIR.users).upsert({ _id: `u:${d.userId}`, ...d, platformRoles: d.platformRoles ?? [] });
      }
      case 'CommunityUpserted':
        return col(DIR.communities).upsert({ _id: `c:${event.data.communityId}`, ...event.data });
      case 'CommunityMemberSet':
        return col(DIR.communityMembers).upsert({ _id: `c:${event.data.communityId}|u:${event.data.userId}`, ...event.data });
      case 'CommunityMemberRemoved':
        return col(DIR.communityMembers).deleteOne({ _id: `c:${event.data.communityId}|u:${event.data.userId}` });
      case 'ProjectUpserted':
        return col(DIR.projects).upsert({ _id: `p:${event.data.projectId}`, ...event.data });
      case 'ProjectMemberSet':
        return col(DIR.projectMembers).upsert({ _id: `p:${event.data.projectId}|u:${event.data.userId}`, ...event.data });
      case 'ProjectMemberRemoved':
        return col(DIR.projectMembers).deleteOne({ _id: `p:${event.data.projectId}|u:${event.data.userId}` });
      case 'CommunityProjectUpserted':
        return col(DIR.communityProjects).upsert({ _id: `cp:${event.data.communityProjectId}`, ...event.data });
      case 'CommunityProjectRemoved':
        return col(DIR.communityProjects).deleteOne({ _id: `cp:${event.data.communityProjectId}` });
      case 'CircleUpserted':
        return col(DIR.circles).upsert({ _id: `ci:${event.data.circleId}`, ...event.data });
      case 'CircleMemberSet':
        return col(DIR.circleMembers).upsert({ _id: `ci:${event.data.circleId}|u:${event.data.userId}`, ...event.data });
      case 'CircleMemberRemoved':
        return col(DIR.circleMembers).deleteOne({ _id: `ci:${event.data.circleId}|u:${event.data.userId}` });
      case 'ParagraphUpserted':
        return col(DIR.paragraphs).upsert({ _id: `pa:${event.data.paragraphId}`, ...event.data });
      case 'ApplicationDefinitionUpserted':
        return col(DIR.applicationDefinitions).upsert({
          _id: `ad:${event.data.applicationDefinitionId}`,
          ...event.data,
        });
      case 'ApplicationUpserted':
        // Normalised to UTC with milliseconds so that ordering by the string is ordering by time.
        return col(DIR.applications).upsert({
          _id: `a:${event.data.applicationId}`,
          ...event.data,
          submittedAt: new Date(event.data.submittedAt).toISOString(),
        });
      default: {
        const unexpected: never = event;
        throw new Error(`unknown directory event ${(unexpected as { type: string }).type}`);
      }
    }
  },
};

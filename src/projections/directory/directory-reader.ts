import type { CircleFacts, CommunityFacts, ProjectFacts, Viewer } from '../../domain/access/viewer';
import type { ReadStore } from '../../infra/read-store/read-store';
import type {
  CircleDoc,
  CircleMemberDoc,
  CommunityDoc,
  CommunityMemberDoc,
  CommunityProjectDoc,
  ParagraphDoc,
  ProjectDoc,
  ProjectMemberDoc,
  UserDoc,
} from './directory-collections';
import { DIR } from './directory-collections';

/** Plain answers out of the directory read model, and the principal resolution queries need. */
export class DirectoryReader {
  constructor(private readonly store: ReadStore) {}

  user(userId: number): Promise<UserDoc | null> {
    return this.store.collection<UserDoc>(DIR.users).findOne({ _id: `u:${userId}` });
  }

  async community(communityId: number): Promise<CommunityFacts | null> {
    const doc = await this.store.collection<CommunityDoc>(DIR.communities).findOne({ _id: `c:${communityId}` });
    return doc ? { communityId: doc.communityId, name: doc.name, visibility: doc.visibility } : null;
  }

  async communities(ids: readonly number[]): Promise<Map<number, CommunityFacts>> {
    if (ids.length === 0) return new Map();
    const docs = await this.store
      .collection<CommunityDoc>(DIR.communities)
      .find({ communityId: { $in: [...new Set(ids)] } });
    return new Map(docs.map((d) => [d.communityId, { communityId: d.communityId, name: d.name, visibility: d.visibility }]));
  }

  async project(projectId: number): Promise<ProjectFacts | null> {
    const doc = await this.store.collection<ProjectDoc>(DIR.projects).findOne({ _id: `p:${projectId}` });
    if (!doc) return null;
    const links = await this.store
      .collection<CommunityProjectDoc>(DIR.communityProjects)
      .find({ projectId }, { sort: { communityId: 1 } });
    return {
      projectId: doc.projectId,
      name: doc.name,
      visibility: doc.visibility,
      teamCircleId: doc.teamCircleId,
      mentorsCircleId: doc.mentorsCircleId,
      communityIds: [...new Set(links.map((l) => l.communityId))],
    };
  }

  communityProject(communityProjectId: number): Promise<CommunityProjectDoc | null> {
    return this.store
      .collection<CommunityProjectDoc>(DIR.communityProjects)
      .findOne({ _id: `cp:${communityProjectId}` });
  }

  communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectDoc | null> {
    return this.store.collection<CommunityProjectDoc>(DIR.communityProjects).findOne({ projectId, communityId });
  }

  paragraph(paragraphId: number): Promise<ParagraphDoc | null> {
    return this.store.collection<ParagraphDoc>(DIR.paragraphs).findOne({ _id: `pa:${paragraphId}` });
  }

  async circles(ids: readonly number[]): Promise<Map<number, CircleFacts>> {
    if (ids.length === 0) return new Map();
    const docs = await this.store.collection<CircleDoc>(DIR.circles).find({ circleId: { $in: [...new Set(ids)] } });
    return new Map(
      docs.map((d) => [
        d.circleId,
        {
          circleId: d.circleId,
          name: d.name,
          longName: d.longName,
          isActive: d.isActive,
          projectId: d.projectId,
          communityId: d.communityId,
        },
      ]),
    );
  }

  /**
   * The caller as the rules see them, read live on every request so that a directory change
   * (someone leaves a team, joins a circle) takes effect on their next call. A project's
   * built-in team and mentors circles count as circles of its team and mentors; a circle
   * counts only while active (a built-in circle the feed never described counts as active).
   */
  async viewer(userId: number): Promise<Viewer> {
    const [communityRows, projectRows, circleRows] = await Promise.all([
      this.store.collection<CommunityMemberDoc>(DIR.communityMembers).find({ userId }),
      this.store.collection<ProjectMemberDoc>(DIR.projectMembers).find({ userId }),
      this.store.collection<CircleMemberDoc>(DIR.circleMembers).find({ userId }),
    ]);
    const projects = new Map(projectRows.map((r) => [r.projectId, r.role] as const));
    const projectDocs =
      projects.size === 0
        ? []
        : await this.store.collection<ProjectDoc>(DIR.projects).find({ projectId: { $in: [...projects.keys()] } });
    const builtIn = new Set(
      projectDocs.map((p) => (projects.get(p.projectId) === 'team' ? p.teamCircleId : p.mentorsCircleId)),
    );
    const candidates = [...new Set([...circleRows.map((r) => r.circleId), ...builtIn])];
    const described = await this.circles(candidates);
    const circles = new Set(
      candidates.filter((id) => {
        const circle = described.get(id);
        return circle ? circle.isActive : builtIn.has(id);
      }),
    );
    return {
      userId,
      communities: new Map(communityRows.map((r) => [r.communityId, { role: r.role, status: r.status }] as const)),
      projects,
      circles,
    };
  }
}

import type { Doc } from '../../infra/read-store/read-store';

/** The directory read model: one collection per record kind, documents keyed by their ids. */
export const DIR = {
  users: 'dir_users',
  communities: 'dir_communities',
  communityMembers: 'dir_community_members',
  projects: 'dir_projects',
  projectMembers: 'dir_project_members',
  communityProjects: 'dir_community_projects',
  circles: 'dir_circles',
  circleMembers: 'dir_circle_members',
  paragraphs: 'dir_paragraphs',
  applicationDefinitions: 'dir_application_definitions',
  applications: 'dir_applications',
} as const;

export type UserDoc = Doc & {
  userId: number;
  name: string;
  status: 'active' | 'inactive' | 'banned';
  platformRoles: string[];
};
export type CommunityDoc = Doc & { communityId: number; name: string; visibility: 'public' | 'private' };
export type CommunityMemberDoc = Doc & {
  communityId: number;
  userId: number;
  role: 'member' | 'admin';
  status: 'pending' | 'approved';
};
export type ProjectDoc = Doc & {
  projectId: number;
  name: string;
  visibility: 'public' | 'private';
  teamCircleId: number;
  mentorsCircleId: number;
};
export type ProjectMemberDoc = Doc & { projectId: number; userId: number; role: 'team' | 'mentor' };
export type CommunityProjectDoc = Doc & { communityProjectId: number; communityId: number; projectId: number };
export type CircleDoc = Doc & {
  circleId: number;
  name: string;
  longName: string;
  isActive: boolean;
  projectId: number | null;
  communityId: number | null;
};
export type CircleMemberDoc = Doc & { circleId: number; userId: number };
export type ParagraphDoc = Doc & { paragraphId: number; projectId: number; communityId: number | null };
export type ApplicationDefinitionDoc = Doc & { applicationDefinitionId: number; name: string; communityId: number };
export type ApplicationDoc = Doc & {
  applicationId: number;
  applicationDefinitionId: number;
  name: string;
  submittedAt: string;
  tags: string[];
  country: string | null;
  stage: string | null;
  industry: string | null;
  sdgs: string[];
  userInterests: string[];
};

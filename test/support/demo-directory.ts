import fs from 'node:fs';
import path from 'node:path';

/** The demo directory the README describes; tests use the same people and places. */
export const demoDirectory = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'demo', 'directory.json'), 'utf8'),
) as { events: { type: string; data: Record<string, unknown> }[] };

/** Who is who in demo/directory.json. */
export const demo = {
  users: {
    team: 1, // Ada: team of projects 10 and 20
    mentor: 2, // Ben: mentor of project 10
    admin1: 3, // Cleo: admin of community 1
    member1: 4, // Dan: approved member of community 1, member of inactive circle 301
    pending1: 5, // Eve: pending member of community 1
    admin2: 6, // Finn: admin of communities 2 and 3
    circleMember: 7, // Gus: approved member of community 1, member of circle 300
    outsider: 8, // Hal: no membership at all
    banned: 9, // Ivy
    inactive: 10, // Jo
    auditor: 11, // Kai: platform role auditor, no membership
  },
  communities: { public1: 1, private2: 2, public3: 3 },
  projects: { solar: 10, water: 20 },
  communityProjects: { solarIn1: 1000, solarIn2: 1001, waterIn2: 1002 },
  circles: { solarTeam: 100, solarMentors: 101, reviewers1: 300, oldJury1: 301, partners10: 400 },
  paragraphs: { solarIn1: 5000, solarProject: 5001 },
  applicationDefinition: 70,
} as const;

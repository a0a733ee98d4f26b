package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack140_MavenProjectDirPlaceholder: Maven interpolates its
// project's directory into its config files so that they work from any
// module: .mvn/maven.config takes ${session.rootDirectory} (MNG-7774,
// Maven 3.9.2+), .mvn/jvm.config ${MAVEN_PROJECTBASEDIR} (MNG-8598: the
// lombok agent, "-javaagent:${MAVEN_PROJECTBASEDIR}/lombok.jar=ECJ").
// launcherRef drops every path holding a "$", so the jar the placeholder
// names in the workspace stays writable to a file tool: the person's next
// mvn loads the agent's jar (as an agent, or as a core extension).
// Control (TestAttack140_MavenProjectDirPlaceholderControl): the same jar
// named by a relative path is refused.
func TestAttack140_MavenProjectDirPlaceholder(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"jvmConfigAgent", ".mvn/jvm.config", "-javaagent:${MAVEN_PROJECTBASEDIR}/lombok.jar=ECJ\n", "lombok.jar"},
		{"mavenConfigExt", ".mvn/maven.config", "-Dmaven.ext.class.path=${session.rootDirectory}/ext/a.jar\n", "ext/a.jar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "PK\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which %s names (%q), was allowed", c.target, c.file, c.data)
			}
		})
	}
}

func TestAttack140_MavenProjectDirPlaceholderControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"jvmConfigAgent", ".mvn/jvm.config", "-javaagent:lombok.jar=ECJ\n", "lombok.jar"},
		{"mavenConfigExt", ".mvn/maven.config", "-Dmaven.ext.class.path=ext/a.jar\n", "ext/a.jar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "PK\n", "ext/other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named relatively, was allowed", c.target)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "ext/other.txt", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of ext/other.txt: %v", err)
			}
		})
	}
}

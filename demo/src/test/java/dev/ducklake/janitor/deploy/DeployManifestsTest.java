package dev.ducklake.janitor.deploy;

import dev.ducklake.janitor.cli.JanitorCommand;
import dev.ducklake.janitor.cli.MaintainStepsAccess;
import dev.ducklake.janitor.maintain.MaintainConfig;
import dev.ducklake.janitor.metrics.MetricsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/kubernetes: every manifest parses, every command and flag the workloads run exists in the real picocli model,
 * the ConfigMap's configuration is valid for maintain (and for serve, which reads the same file), and the sizes and
 * deadlines agree with the benchmarks and the run budgets.
 */
class DeployManifestsTest {

    static final Path K8S = Path.of("deploy", "kubernetes");

    @SuppressWarnings("unchecked")
    static Map<String, Object> doc(String file) throws Exception {
        Iterable<Object> all = new Load(LoadSettings.builder().build()).loadAllFromString(Files.readString(K8S.resolve(file)));
        List<Object> docs = new ArrayList<>();
        all.forEach(docs::add);
        assertThat(docs).as(file).hasSize(1);
        return (Map<String, Object>) docs.get(0);
    }

    @SuppressWarnings("unchecked")
    static <T> T at(Object node, String... path) {
        Object n = node;
        for (String p : path) {
            n = p.matches("\\d+") ? ((List<Object>) n).get(Integer.parseInt(p)) : ((Map<String, Object>) n).get(p);
            assertThat(n).as(String.join(".", path)).isNotNull();
        }
        return (T) n;
    }

    @Test
    void everyManifestParsesAndTheKustomizationListsThemAll() throws Exception {
        List<String> files;
        try (Stream<Path> s = Files.list(K8S)) {
            files = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList();
        }
        for (String f : files) {
            Map<String, Object> d = doc(f);
            assertThat(d).as(f).containsKeys("apiVersion", "kind");
        }
        List<String> resources = at(doc("kustomization.yaml"), "resources");
        for (String r : resources) {
            assertThat(K8S.resolve(r)).exists();
        }
        assertThat(resources).contains("serviceaccount.yaml", "configmap.yaml", "cronjob.yaml", "deployment.yaml", "service.yaml",
                        "servicemonitor.yaml")
                .doesNotContain("secret.example.yaml");
    }

    static Map<String, Object> container(Map<String, Object> podSpec) {
        List<Map<String, Object>> cs = at(podSpec, "containers");
        assertThat(cs).hasSize(1);
        return cs.get(0);
    }

    static CommandLine.ParseResult parse(List<String> args) {
        CommandLine cl = new CommandLine(new JanitorCommand(Map.of()));
        return cl.parseArgs(args.toArray(String[]::new));
    }

    @Test
    void theCronJobRunsMaintainWithFlagsThatExist() throws Exception {
        Map<String, Object> cron = doc("cronjob.yaml");
        assertThat((String) at(cron, "kind")).isEqualTo("CronJob");
        assertThat((String) at(cron, "spec", "concurrencyPolicy")).isEqualTo("Forbid");
        Map<String, Object> c = container(at(cron, "spec", "jobTemplate", "spec", "template", "spec"));
        List<String> args = at(c, "args");
        CommandLine.ParseResult pr = parse(args);
        assertThat(pr.subcommand().commandSpec().name()).isEqualTo("maintain");
        assertThat(pr.subcommand().hasMatchedOption("--config")).isTrue();
        assertThat(pr.subcommand().hasMatchedOption("--log-format")).isTrue();
        assertThat(pr.subcommand().unmatched()).isEmpty();
    }

    @Test
    void serveRunsWithFlagsThatExistAndProbesOnHealthyAndReady() throws Exception {
        Map<String, Object> dep = doc("deployment.yaml");
        Map<String, Object> c = container(at(dep, "spec", "template", "spec"));
        List<String> args = at(c, "args");
        CommandLine.ParseResult pr = parse(args);
        assertThat(pr.subcommand().commandSpec().name()).isEqualTo("serve");
        // issue 28 item 11: the CLI listens on loopback unless told; the pod must say so to be reachable in the cluster
        assertThat(pr.subcommand().commandSpec().findOption("--listen").defaultValue()).as("the CLI's default")
                .isEqualTo("127.0.0.1:9187");
        assertThat(pr.subcommand().hasMatchedOption("--listen")).as("the Deployment passes its listen address").isTrue();
        assertThat(pr.subcommand().matchedOptionValue("--listen", "")).isEqualTo("0.0.0.0:9187");
        assertThat((String) at(c, "livenessProbe", "httpGet", "path")).isEqualTo("/-/healthy");
        assertThat((String) at(c, "readinessProbe", "httpGet", "path")).isEqualTo("/-/ready");
        assertThat(((Number) at(c, "ports", "0", "containerPort")).intValue()).isEqualTo(9187);
        // Service selects the pods, the ServiceMonitor selects the Service, on the named port
        Map<String, Object> podLabels = at(dep, "spec", "template", "metadata", "labels");
        Map<String, Object> svc = doc("service.yaml");
        assertThat(podLabels).containsAllEntriesOf(at(svc, "spec", "selector"));
        Map<String, Object> sm = doc("servicemonitor.yaml");
        assertThat((Map<String, Object>) at(svc, "metadata", "labels")).containsAllEntriesOf(at(sm, "spec", "selector", "matchLabels"));
        assertThat((String) at(sm, "spec", "endpoints", "0", "port")).isEqualTo(at(svc, "spec", "ports", "0", "name"));
        // the Dockerfile's default command parses too
        assertThat(parse(List.of("--help")).isUsageHelpRequested()).isTrue();
    }

    @Test
    void theConfigMapIsValidForMaintainAndServe(@TempDir Path tmp) throws Exception {
        Path file = configMapFile(tmp);
        Map<String, String> env = Map.of();
        Map<String, dev.ducklake.janitor.maintain.MaintenanceStep> registry = MaintainStepsAccess.registry();
        MaintainConfig m = MaintainConfig.load(file, env, registry);
        assertThat(m.steps()).extracting(s -> s.name()).containsExactly("expire-snapshots", "drop-orphan-inline-tables",
                "purge-orphan-stats", "flush-inlined-data", "compact", "cleanup-old-files", "delete-orphan-files", "check");
        // every step of the chain is one this build runs (none would be skipped as unavailable)
        for (var s : m.steps()) {
            assertThat(registry.get(s.name()).unavailableReason()).as(s.name()).isNull();
        }
        MetricsConfig serve = MetricsConfig.load(file, env);
        assertThat(serve.catalogs()).hasSize(m.catalogs().size());
        // the config names the file the Secret is mounted at
        Map<String, Object> cron = doc("cronjob.yaml");
        List<Map<String, Object>> mounts = at(container(at(cron, "spec", "jobTemplate", "spec", "template", "spec")), "volumeMounts");
        assertThat(Files.readString(K8S.resolve("configmap.yaml"))).contains("password_file: "
                + mounts.stream().filter(v -> v.get("name").equals("password")).findFirst().orElseThrow().get("mountPath") + "/password");
    }

    /** The ConfigMap's file, with the Secret's mount path pointed at a temporary password file. */
    static Path configMapFile(Path tmp) throws Exception {
        String yaml = at(doc("configmap.yaml"), "data", "ducklake-janitor.yaml");
        Path pw = Files.writeString(tmp.resolve("password"), "not-the-real-one\n");
        Path file = tmp.resolve("ducklake-janitor.yaml");
        Files.writeString(file, yaml.replace("/var/run/secrets/ducklake-janitor/password", pw.toString()));
        return file;
    }

    @Test
    void resourcesFollowTheBenchmarkHeapAndTheDeadlineCoversTheRunBudget(@TempDir Path tmp) throws Exception {
        Map<String, Object> cron = doc("cronjob.yaml");
        Map<String, Object> job = at(cron, "spec", "jobTemplate", "spec");
        Map<String, Object> c = container(at(job, "template", "spec"));
        long limit = mebibytes(at(c, "resources", "limits", "memory"));
        long request = mebibytes(at(c, "resources", "requests", "memory"));
        int percent = Integer.parseInt(Files.readString(Path.of("deploy", "Dockerfile"))
                .replaceAll("(?s).*-XX:MaxRAMPercentage=(\\d+).*", "$1"));
        long heap = limit * percent / 100;
        // the 230,000-table benchmark completed under -Xmx256m with a live heap of ~110 MiB after GC
        assertThat(heap).as("heap from the limit").isGreaterThanOrEqualTo(256);
        assertThat(request).as("request covers the heap plus metaspace, threads and buffers").isGreaterThanOrEqualTo(heap + 128);
        assertThat(request).isLessThanOrEqualTo(limit);
        MaintainConfig m = MaintainConfig.load(configMapFile(tmp), Map.of(), MaintainStepsAccess.registry());
        long deadline = ((Number) job.get("activeDeadlineSeconds")).longValue();
        assertThat(m.runBudget()).isNotNull();
        // the run budget, then the last batch's commit (at most the 30 s stop grace) and the pushes
        assertThat(deadline).isGreaterThanOrEqualTo(m.runBudget().plus(Duration.ofSeconds(60)).toSeconds());
        for (MaintainConfig.Catalog cat : m.catalogs()) {
            assertThat(cat.runBudget()).isNotNull();
            assertThat(cat.runBudget()).isLessThanOrEqualTo(m.runBudget());
        }
        // hourly schedule: a run ends before the next one is due (Forbid would skip it otherwise)
        assertThat((String) at(cron, "spec", "schedule")).matches("\\d+ \\* \\* \\* \\*");
        assertThat(deadline).isLessThan(3600);
    }

    @Test
    void bothWorkloadsRunAsTheServiceAccountThatCarriesTheIrsaRole() throws Exception {
        Map<String, Object> sa = doc("serviceaccount.yaml");
        assertThat((String) at(sa, "kind")).isEqualTo("ServiceAccount");
        String name = at(sa, "metadata", "name");
        assertThat((String) at(sa, "metadata", "annotations", "eks.amazonaws.com/role-arn")).startsWith("arn:aws:iam::");
        assertThat((Boolean) at(sa, "automountServiceAccountToken")).as("the janitor never calls the Kubernetes API").isFalse();
        Map<String, Object> cronPod = at(doc("cronjob.yaml"), "spec", "jobTemplate", "spec", "template", "spec");
        Map<String, Object> servePod = at(doc("deployment.yaml"), "spec", "template", "spec");
        assertThat((String) at(cronPod, "serviceAccountName")).isEqualTo(name);
        assertThat((String) at(servePod, "serviceAccountName")).isEqualTo(name);
    }

    @Test
    void theCronJobPodCarriesTheNameLabelOfTheServePodAndNeverWaitsForAnAnswer() throws Exception {
        Map<String, Object> cron = doc("cronjob.yaml");
        Map<String, Object> labels = at(cron, "spec", "jobTemplate", "spec", "template", "metadata", "labels");
        Map<String, Object> serveLabels = at(doc("deployment.yaml"), "spec", "template", "metadata", "labels");
        assertThat(labels).containsEntry("app.kubernetes.io/name", serveLabels.get("app.kubernetes.io/name"))
                .containsEntry("app.kubernetes.io/component", "maintain");
        List<String> args = at(container(at(cron, "spec", "jobTemplate", "spec", "template", "spec")), "args");
        assertThat(parse(args).subcommand().hasMatchedOption("--yes")).isTrue();
    }

    @Test
    void theShippedChainMakesStorageStepsRequiredAndRunsThemDailyAndWeekly(@TempDir Path tmp) throws Exception {
        MaintainConfig m = MaintainConfig.load(configMapFile(tmp), Map.of(), MaintainStepsAccess.registry());
        assertThat(m.stateSchema()).as("every needs the run ledger").isNotBlank();
        Map<String, dev.ducklake.janitor.maintain.StepConfig> steps = new java.util.HashMap<>();
        m.steps().forEach(st -> steps.put(st.name(), st));
        // a forgotten IRSA annotation fails the storage steps at once (exit 13, alerted) instead of skipping them silently
        assertThat(steps.get("cleanup-old-files").required()).isTrue();
        assertThat(steps.get("delete-orphan-files").required()).isTrue();
        // delete-orphan-files lists the whole prefix: daily or weekly, never with every hourly CronJob run
        assertThat(steps.get("delete-orphan-files").every()).isBetween(Duration.ofDays(1), Duration.ofDays(7));
        assertThat(steps.get("cleanup-old-files").every()).isEqualTo(Duration.ofDays(1));
        // the deletion-queue alert (4 days) allows for a daily cleanup of files queued 2 days ago
        assertThat(Duration.ofDays(2).plus(steps.get("cleanup-old-files").every())).isLessThan(Duration.ofDays(4));
        assertThat(steps.get("expire-snapshots").every()).as("the catalog-only steps run hourly").isNull();
        assertThat(steps.get("drop-orphan-inline-tables").every()).isNull();
    }

    static long mebibytes(String q) {
        if (q.endsWith("Mi")) {
            return Long.parseLong(q.substring(0, q.length() - 2));
        }
        if (q.endsWith("Gi")) {
            return Long.parseLong(q.substring(0, q.length() - 2)) * 1024;
        }
        throw new AssertionError("unexpected memory quantity " + q);
    }
}

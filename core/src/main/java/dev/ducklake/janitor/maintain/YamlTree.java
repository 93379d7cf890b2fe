package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.Secrets;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document (SnakeYAML Engine, YAML 1.2 core schema) turned into plain Java values (LinkedHashMap, List, String,
 * Long, Double, Boolean, null) together with the line of every key, so that a configuration error can name the file,
 * the line and the key (never SnakeYAML's quotation of the offending line, which may hold a password; the one way
 * {@code maintain}, {@code serve} and {@code metrics --config} read YAML). Paths look like {@code catalogs[0].connection} or {@code maintain[1].expire-snapshots.older-than}.
 */
public final class YamlTree {

    private final Path source;
    private final Object root;
    private final Map<String, Integer> lines;
    private final String what;

    private YamlTree(Path source, Object root, Map<String, Integer> lines, String what) {
        this.source = source;
        this.root = root;
        this.lines = lines;
        this.what = what;
    }

    /**
     * Parses one YAML document.
     *
     * @param source the file name used in messages
     * @param text the YAML text
     * @param what what the file is, for messages (e.g. "Maintain configuration")
     * @return the tree
     * @throws JanitorException {@link Reason#CONFIG} when the text is not valid YAML or a mapping repeats a key
     */
    public static YamlTree parse(Path source, String text, String what) throws JanitorException {
        Node node;
        try {
            node = new Compose(LoadSettings.builder().setLabel(String.valueOf(source)).setAllowDuplicateKeys(true).build())
                    .composeString(text).orElse(null);
        } catch (MarkedYamlEngineException e) {
            // SnakeYAML's message quotes the offending line (a password, perhaps): only the line number and the problem
            int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
            throw new JanitorException(Reason.CONFIG, what + " " + source + (line > 0 ? ", line " + line : "") + ": not valid YAML: "
                    + Secrets.redact(e.getProblem()) + ".");
        } catch (YamlEngineException e) {
            throw new JanitorException(Reason.CONFIG, what + " " + source + ": not valid YAML: " + Secrets.redact(firstLine(e.getMessage())) + ".");
        }
        Map<String, Integer> lines = new HashMap<>();
        YamlTree probe = new YamlTree(source, null, lines, what);
        Object root = node == null ? null : probe.convert(node, "", lines);
        return new YamlTree(source, root, lines, what);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** The document's root value (null for an empty document). */
    public Object root() {
        return root;
    }

    /** The file the document came from. */
    public Path source() {
        return source;
    }

    /**
     * The 1-based line of a path, or of its nearest enclosing path that has one (0 when none).
     *
     * @param path e.g. {@code catalogs[0].name}
     * @return the line
     */
    public int line(String path) {
        String p = path;
        while (!p.isEmpty()) {
            Integer l = lines.get(p);
            if (l != null) {
                return l;
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut <= 0 ? "" : p.substring(0, cut);
        }
        Integer l = lines.get("");
        return l == null ? 0 : l;
    }

    /**
     * A configuration error naming the file, the line and the key.
     *
     * @param path the key's path ("" for the whole document)
     * @param message what is wrong and what to do
     * @return the exception ({@link Reason#CONFIG}, exit 11)
     */
    public JanitorException error(String path, String message) {
        int line = line(path);
        return new JanitorException(Reason.CONFIG, what + " " + source + (line > 0 ? ", line " + line : "")
                + (path.isEmpty() ? "" : ", key " + path) + ": " + message + ".");
    }

    /** A {@code ${env:NAME}} reference in a configuration value. */
    private static final java.util.regex.Pattern ENV_REF = java.util.regex.Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

    /**
     * @param path the node's path, for the message
     * @param node a node of this tree
     * @return the node as a mapping with text keys
     * @throws JanitorException {@link Reason#CONFIG} naming the path when it is not a mapping
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> map(String path, Object node) throws JanitorException {
        if (!(node instanceof Map<?, ?> m)) {
            throw error(path, "must be a mapping (key: value)");
        }
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                throw error(path, "has a non-text key " + k);
            }
        }
        return (Map<String, Object>) m;
    }

    /**
     * @param path the mapping's path ("" for the top level)
     * @param m the mapping
     * @param allowed the keys it may have
     * @throws JanitorException {@link Reason#CONFIG} naming the first unknown key and the allowed ones
     */
    public void checkKeys(String path, Map<String, Object> m, java.util.Set<String> allowed) throws JanitorException {
        for (String k : m.keySet()) {
            if (!allowed.contains(k)) {
                throw error(path.isEmpty() ? k : path + "." + k, "unknown key; allowed: " + String.join(", ", new java.util.TreeSet<>(allowed)));
            }
        }
    }

    /**
     * @param path the node's path
     * @param node a node of this tree
     * @return the node as non-empty text (a whole number is taken as its digits)
     * @throws JanitorException {@link Reason#CONFIG}: "is required" for an absent node, else "must be non-empty text"
     */
    public String text(String path, Object node) throws JanitorException {
        if (node instanceof String s && !s.isBlank()) {
            return s;
        }
        if (node instanceof Long l) {
            return l.toString();
        }
        throw error(path, node == null ? "is required" : "must be non-empty text");
    }

    /**
     * Replaces each {@code ${env:NAME}} of a value by that variable's value.
     *
     * @param path the value's path, for the message
     * @param value the value as written
     * @param env the environment
     * @return the value with every reference replaced
     * @throws JanitorException {@link Reason#CONFIG} naming a variable that is not set
     */
    public String expandEnv(String path, String value, Map<String, String> env) throws JanitorException {
        java.util.regex.Matcher m = ENV_REF.matcher(value);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = env.get(m.group(1));
            if (v == null) {
                throw error(path, "references the environment variable " + m.group(1) + ", which is not set");
            }
            m.appendReplacement(b, java.util.regex.Matcher.quoteReplacement(v));
        }
        m.appendTail(b);
        return b.toString();
    }

    private Object convert(Node node, String path, Map<String, Integer> lines) throws JanitorException {
        node.getStartMark().ifPresent(m -> lines.putIfAbsent(path, m.getLine() + 1));
        if (node instanceof MappingNode m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (NodeTuple t : m.getValue()) {
                Node k = t.getKeyNode();
                int keyLine = k.getStartMark().map(mk -> mk.getLine() + 1).orElse(0);
                if (!(k instanceof ScalarNode ks)) {
                    throw new JanitorException(Reason.CONFIG, what + " " + source + ", line " + keyLine + (path.isEmpty() ? "" : ", key " + path)
                            + ": a key must be plain text.");
                }
                String key = ks.getValue();
                String child = path.isEmpty() ? key : path + "." + key;
                if (out.containsKey(key)) {
                    throw new JanitorException(Reason.CONFIG, what + " " + source + ", line " + keyLine + ", key " + child
                            + ": duplicate key.");
                }
                lines.put(child, keyLine);
                out.put(key, convert(t.getValueNode(), child, lines));
            }
            return out;
        }
        if (node instanceof SequenceNode s) {
            List<Object> out = new ArrayList<>();
            int i = 0;
            for (Node item : s.getValue()) {
                out.add(convert(item, path + "[" + i++ + "]", lines));
            }
            return out;
        }
        ScalarNode sc = (ScalarNode) node;
        return scalar(sc.getValue(), sc.getTag());
    }

    /**
     * The value a text would have had if written unquoted (plain) in a document: {@code "false"} is false, {@code "10"}
     * is 10, {@code "7d"} stays text. For messages about a quoted value that would be valid without the quotes.
     *
     * @param text a scalar's text
     * @return the value in this class's plain Java types, as {@link #parse} would have read it unquoted
     */
    public static Object plain(String text) {
        return scalar(text, PLAIN.resolve(text, true));
    }

    /** How the parser resolves an unquoted scalar (the schema {@link #parse} reads with). */
    private static final org.snakeyaml.engine.v2.resolver.ScalarResolver PLAIN =
            LoadSettings.builder().build().getSchema().getScalarResolver();

    private static Object scalar(String v, Tag tag) {
        if (tag.equals(Tag.NULL)) {
            return null;
        }
        if (tag.equals(Tag.BOOL)) {
            return Boolean.valueOf(v.toLowerCase(java.util.Locale.ROOT));
        }
        if (tag.equals(Tag.INT)) {
            try {
                BigInteger b = v.startsWith("0x") ? new BigInteger(v.substring(2), 16)
                        : v.startsWith("0o") ? new BigInteger(v.substring(2), 8) : new BigInteger(v.replace("+", ""));
                return b.bitLength() < 63 ? (Object) b.longValue() : (Object) b.doubleValue();
            } catch (NumberFormatException e) {
                return v;
            }
        }
        if (tag.equals(Tag.FLOAT)) {
            String f = v.toLowerCase(java.util.Locale.ROOT);
            if (f.endsWith(".inf")) {
                return f.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            if (f.equals(".nan")) {
                return Double.NaN;
            }
            try {
                return Double.parseDouble(v);
            } catch (NumberFormatException e) {
                return v;
            }
        }
        return v;
    }
}

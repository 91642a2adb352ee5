"""The routine's part of a standalone reproducer's build line for a gate
finding (orchestration/emit_build.py, issue 44): the gate's own compile of
each file, from the user's file while it is the one the gate copied, the
gate's renames (the failure functions' left out, a local entry made
global), glibc's x86 data only where the routine names it."""
import json
import os
import unittest

from common import tmpdir
from orchestration import emit_build


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def gate_build(d, compiles, renames, locals_="", given=None, sources=None):
    """A gate build directory as gate_build and submission leave it."""
    build = os.path.join(d, "build", "gate", "r-x")
    write(os.path.join(build, "plain.parts", "commands.json"),
          json.dumps({"compiles": compiles, "cc": "cc",
                      "binutils": ["/usr/bin/nm", "/nonexistent/bin/objcopy", "/usr/bin/objdump"]}))
    write(os.path.join(build, "plain.parts", "renames"), renames)
    write(os.path.join(build, "plain.parts", "locals"), locals_)
    write(os.path.join(build, "sources"), "".join(s + "\n" for s in sources or [c[-1] for c in compiles]))
    if given is not None:
        write(os.path.join(build, "given"), "".join(g + "\n" for g in given))
    return build


class CompileCommand(unittest.TestCase):
    def test_the_gates_flags_without_its_dependency_file_and_output(self):
        argv = ["cc", "-m32", "-include", "/t/zoo/kernel/shim.h", "-MD", "-MF", "p/0.d", "-c", "-o", "p/0.o",
                "src/0-a.S"]
        self.assertEqual(emit_build.compile_command(argv, "/home/u/a.S", "case.0.o"),
                         ["cc", "-m32", "-include", "/t/zoo/kernel/shim.h", "-c", "-o", "case.0.o", "/home/u/a.S"])


class OwnFile(unittest.TestCase):
    def test_the_users_file_while_it_is_the_gates_copy(self):
        d = tmpdir(self)
        copy, mine = write(os.path.join(d, "copy.S"), "ret\n"), write(os.path.join(d, "mine.S"), "ret\n")
        self.assertEqual(emit_build.own_file(copy, mine), mine)

    def test_the_copy_once_the_user_changed_or_moved_it(self):
        d = tmpdir(self)
        copy, mine = write(os.path.join(d, "copy.S"), "ret\n"), write(os.path.join(d, "mine.S"), "nop\nret\n")
        self.assertEqual(emit_build.own_file(copy, mine), copy)
        self.assertEqual(emit_build.own_file(copy, os.path.join(d, "gone.S")), copy)
        self.assertEqual(emit_build.own_file(copy, ""), copy)   # an archive's member


class Plan(unittest.TestCase):
    def test_each_file_compiled_then_renamed_from_the_users_own(self):
        d = tmpdir(self)
        mine = write(os.path.join(d, "tree", "a.S"), "copy_page:\n")
        build = gate_build(d, [["cc", "-include", "shim.h", "-c", "-o", "o", write(os.path.join(d, "src", "0-a.S"),
                                                                                "copy_page:\n")]],
                           "copy_page mg_gate_copy_page\n", given=[mine])
        commands, objects = emit_build.plan(build, "out/case")
        self.assertEqual(objects, ["out/case.0.o"])
        self.assertEqual(commands[0], ["cc", "-include", "shim.h", "-c", "-o", "out/case.0.o", mine])
        self.assertEqual(commands[1], ["/nonexistent/bin/objcopy",
                                       "--redefine-syms=" + os.path.join(build, "plain.parts", "renames"),
                                       "out/case.0.o"])

    def test_a_local_entry_is_made_global_by_its_new_name(self):
        d = tmpdir(self)
        src = write(os.path.join(d, "src", "0-k.S"), "x\n")
        build = gate_build(d, [["cc", "-c", "-o", "o", src]],
                           "kmemcpy mg_gate_kmemcpy\nmemcpy_orig mg_gate_memcpy_orig\n", locals_="memcpy_orig\n")
        commands, _ = emit_build.plan(build, "case")
        self.assertEqual(commands[1][-2], "--globalize-symbol=mg_gate_memcpy_orig")

    def test_the_failure_functions_keep_their_names(self):
        d = tmpdir(self)
        src = write(os.path.join(d, "src", "0-c.c"), "x\n")
        build = gate_build(d, [["cc", "-c", "-o", "o", src]],
                           "c mg_gate_c\n__chk_fail mg_noreturn___chk_fail\n")
        commands, _ = emit_build.plan(build, "case")
        self.assertEqual(commands[1], ["/nonexistent/bin/objcopy", "--redefine-sym=c=mg_gate_c", "case.0.o"])

    def test_an_object_as_given_is_renamed_into_a_copy(self):
        d = tmpdir(self)
        obj = write(os.path.join(d, "src", "0-m.o"), "\x7fELF")
        build = gate_build(d, [], "m mg_gate_m\n", sources=[obj])
        commands, objects = emit_build.plan(build, "case")
        self.assertEqual(commands, [["/nonexistent/bin/objcopy",
                                     "--redefine-syms=" + os.path.join(build, "plain.parts", "renames"),
                                     obj, "case.0.o"]])
        self.assertEqual(objects, ["case.0.o"])

    def test_glibcs_x86_data_only_where_the_routine_names_it(self):
        d = tmpdir(self)
        defaults = write(os.path.join(d, "src", "glibc-x86-defaults.c"),
                         "__attribute__((weak)) long __x86_shared_non_temporal_threshold = 786432L;\n")
        for text, linked in (("rep movsb\n", False), ("cmp __x86_shared_non_temporal_threshold(%rip), %rdx\n", True)):
            src = write(os.path.join(d, "src", "0-m.S"), text)
            build = gate_build(d, [["cc", "-c", "-o", "o", src], ["cc", "-c", "-o", "o", defaults]],
                               "m mg_gate_m\n__x86_shared_non_temporal_threshold "
                               "mg_gate___x86_shared_non_temporal_threshold\n")
            _, objects = emit_build.plan(build, "case")
            self.assertEqual(objects, ["case.0.o", "case.1.o"] if linked else ["case.0.o"], text)

    def test_no_record_of_the_compiles_is_none(self):
        self.assertIsNone(emit_build.plan(tmpdir(self), "case"))


if __name__ == "__main__":
    unittest.main()

import scalargrad as torch
# Reference program: 004_794f6cdce7b5a25b.txt, "hook / 사용 방법" (the usage
# template), exactly as the document has it (its body lines were indented with
# tabs; restored with spaces). `import scalargrad as torch` is added; the
# document defines no Model. See hook_usage_template_called.py.


# hook 함수 정의
def hook_func():
    """
    hook이 실행할 내용 작성
    """


# hook을 사용할 객체(tensor, module) 생성
model = Model()

# 해당 객체에 hook 등록
model.register_forward_hook(hook_func)
